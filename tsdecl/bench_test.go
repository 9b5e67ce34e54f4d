package tsdecl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-host/codemode-host/protocol"
)

// BenchmarkDeclarationsCorpus renders the whole real-world corpus: a few
// dozen tools with refs, unions, tuples and a schema over the size cap.
func BenchmarkDeclarationsCorpus(b *testing.B) {
	var defs []protocol.ToolDef
	for _, c := range loadCorpus(b) {
		defs = append(defs, c.defs...)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Declarations(defs)
	}
}

// BenchmarkSchemaCalendar renders one large realistic input schema (nested
// objects, refs, oneOf, enums, doc comments) that fits the size cap.
func BenchmarkSchemaCalendar(b *testing.B) {
	c := loadNamed(b, "calendar")
	b.ReportAllocs()
	for b.Loop() {
		_ = Schema(c.InputSchema)
	}
}

// BenchmarkSchemaOverCap renders a schema that needs every fallback tier.
func BenchmarkSchemaOverCap(b *testing.B) {
	c := loadNamed(b, "huge")
	b.ReportAllocs()
	for b.Loop() {
		_ = Schema(c.InputSchema)
	}
}

func loadNamed(b *testing.B, name string) protocol.ToolDef {
	b.Helper()
	if _, err := os.Stat(filepath.Join("testdata", name+".json")); err != nil {
		b.Fatal(err)
	}
	for _, c := range loadCorpus(b) {
		if c.name == name {
			return c.defs[0]
		}
	}
	b.Fatalf("no corpus file %s", name)
	return protocol.ToolDef{}
}
