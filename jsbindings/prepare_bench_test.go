package jsbindings_test

import (
	goruntime "runtime"
	"testing"

	v8 "rogchap.com/v8go"

	"github.com/codemode-host/codemode-host/internal/v8shim"
	"github.com/codemode-host/codemode-host/jsbindings"
)

// BenchmarkPrepare measures what a worker spends, while idle, to prepare
// one context: a fresh V8 context with the standard library and the
// prelude run in it (issue #21 reports it before and after the standard
// library).
func BenchmarkPrepare(b *testing.B) { benchPrepare(b, "") }

// BenchmarkPrepareAndLoadStdlib adds what the first use of every part of
// the standard library costs a cell: the ES2023+ methods, then each web
// group.
func BenchmarkPrepareAndLoadStdlib(b *testing.B) {
	benchPrepare(b, "void [[].toSorted(), DOMException, atob, structuredClone, URL, TextEncoder]")
}

func benchPrepare(b *testing.B, script string) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	iso := v8.NewIsolate()
	defer iso.Dispose()
	entered := v8shim.Enter(iso)
	defer entered.Exit()
	v8shim.TrackRejections(iso)
	g, err := jsbindings.New(iso)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c, err := g.Prepare()
		if err != nil {
			b.Fatal(err)
		}
		if script != "" {
			if _, err := c.RunScript(script, "bench.js"); err != nil {
				b.Fatal(err)
			}
		}
		c.Close()
	}
}
