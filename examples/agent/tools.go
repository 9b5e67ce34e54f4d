package main

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

type weatherIn struct {
	City string `json:"city"`
}

type weatherOut struct {
	Celsius int    `json:"celsius"`
	Sky     string `json:"sky"`
}

type rememberIn struct {
	Note string `json:"note"`
}

type rememberOut struct {
	Notes []string `json:"notes"`
}

// addNativeTools registers the agent's own tools: one read-only (it may
// run alongside others) and one that keeps state.
func addNativeTools(reg *registry.Registry) error {
	weather := registry.NewTypedFunc(registry.Spec{
		Name:             registry.Plain("weather"),
		Description:      "Current weather in a city.",
		InputSchema:      json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		OutputSchema:     json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"integer"},"sky":{"type":"string"}},"required":["celsius","sky"]}`),
		SupportsParallel: true,
	}, func(_ context.Context, in weatherIn) (weatherOut, error) {
		return weatherOut{Celsius: 21, Sky: "clear"}, nil
	})
	var mu sync.Mutex // calls run one at a time (not parallel), but conversations may share the tool
	var notes []string
	remember := registry.NewTypedFunc(registry.Spec{
		Name:        registry.Plain("remember"),
		Description: "Keeps a note and returns every note kept so far.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}},"required":["note"]}`),
	}, func(_ context.Context, in rememberIn) (rememberOut, error) {
		if in.Note == "" {
			return rememberOut{}, &protocol.ToolError{Code: protocol.CodeInvalidArguments, Message: "remember needs a non-empty note"}
		}
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, in.Note)
		return rememberOut{Notes: append([]string(nil), notes...)}, nil
	})
	if err := reg.AddTrusted(weather); err != nil {
		return err
	}
	return reg.AddTrusted(remember)
}
