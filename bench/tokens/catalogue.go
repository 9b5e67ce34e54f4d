package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// catalogue is a catalogue file: what real MCP servers sent when a client
// connected (tsdecl/testdata/mcp/catalogue-37.json, which
// registry/mcp's TestCatalogue writes).
type catalogue struct {
	Servers []catalogueServer `json:"servers"`
}

// catalogueServer is one server: its name, its initialize instructions
// and its tools/list entries.
type catalogueServer struct {
	Name         string      `json:"name"`
	Instructions string      `json:"instructions"`
	Tools        []*sdk.Tool `json:"tools"`
}

// readCatalogue reads a catalogue file.
func readCatalogue(path string) (catalogue, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return catalogue{}, fmt.Errorf("reading the catalogue: %w", err)
	}
	var c catalogue
	if err := json.Unmarshal(data, &c); err != nil {
		return catalogue{}, fmt.Errorf("the catalogue %s is not {\"servers\": [{name, instructions, tools}]}: %w", path, err)
	}
	if len(c.Servers) == 0 {
		return catalogue{}, fmt.Errorf("the catalogue %s has no servers", path)
	}
	for i, s := range c.Servers {
		if s.Name == "" || len(s.Tools) == 0 {
			return catalogue{}, fmt.Errorf("the catalogue %s: server %d has no name or no tools", path, i)
		}
	}
	return c, nil
}

// size is how many tools the catalogue has.
func (c catalogue) size() int {
	n := 0
	for _, s := range c.Servers {
		n += len(s.Tools)
	}
	return n
}

// names are the servers' names, in order.
func (c catalogue) names() []string {
	var out []string
	for _, s := range c.Servers {
		out = append(out, s.Name)
	}
	return out
}

// register adds every catalogued server to reg the way an agent does, with
// mcp.Connect, each through an in-memory MCP server that lists the
// server's tools as the real one did (calls are not served). exposure is
// every tool's exposure. The returned function closes the servers.
func register(ctx context.Context, reg *registry.Registry, cat catalogue, exposure registry.Exposure) (func(), error) {
	var servers []*mcp.Server
	closeAll := func() {
		for _, s := range servers {
			_ = s.Close()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, cs := range cat.Servers {
		name := cs.Name
		srv := sdk.NewServer(&sdk.Implementation{Name: name, Version: "catalogue"}, &sdk.ServerOptions{Instructions: cs.Instructions})
		for _, t := range cs.Tools {
			srv.AddTool(t, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return nil, errors.New("the token report does not call tools")
			})
		}
		clientSide, serverSide := sdk.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, serverSide, nil); err != nil {
			closeAll()
			return nil, fmt.Errorf("serving %s's catalogued tools: %w", name, err)
		}
		s, err := mcp.Connect(ctx, reg, mcp.ServerConfig{Name: name, Transport: clientSide, Exposure: exposure})
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("connecting %s: %w", name, err)
		}
		servers = append(servers, s)
	}
	return closeAll, nil
}
