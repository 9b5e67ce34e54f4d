package runtime

import (
	"strings"
	"sync"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// declCache remembers rendered tool declarations: a parent sends the same
// tool definitions with every cell, and rendering a large schema costs
// far more than running a small cell. Safe from any goroutine.
type declCache struct {
	mu sync.Mutex
	m  map[string]string
}

// maxDecls bounds the cache; when full it starts over.
const maxDecls = 4096

var decls = &declCache{m: map[string]string{}}

// toolKey identifies a tool definition by everything a declaration or a
// search index reads from it.
func toolKey(d protocol.ToolDef) string {
	return strings.Join([]string{d.Namespace, d.Name, string(d.Kind), d.Description, string(d.InputSchema), string(d.OutputSchema)}, "\x00")
}

func (c *declCache) get(d protocol.ToolDef) string {
	key := toolKey(d)
	c.mu.Lock()
	s, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return s
	}
	s = tsdecl.ToolDeclaration(d)
	c.mu.Lock()
	if len(c.m) >= maxDecls {
		c.m = map[string]string{}
	}
	c.m[key] = s
	c.mu.Unlock()
	return s
}
