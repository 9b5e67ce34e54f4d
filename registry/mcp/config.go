package mcp

import (
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-host/codemode-host/registry"
)

// Defaults of ServerConfig.
const (
	// DefaultConnectTimeout bounds starting a server, the MCP handshake and
	// the first tool listing.
	DefaultConnectTimeout = 60 * time.Second
	// DefaultStopTimeout is how long Close lets a command server exit after
	// its stdin is closed before it is terminated.
	DefaultStopTimeout = 2 * time.Second
)

// ServerConfig says how to reach one MCP server and how to expose its
// tools. Exactly one of Command, URL and Transport must be set. The zero
// value of every other field is a sensible default.
type ServerConfig struct {
	// Name names the server. Its tools live in namespace "mcp__<Name>__",
	// so scripts call them as tools.mcp__<Name>__<tool>. Required; letters,
	// digits, '_' and '-' only.
	Name string

	// Command starts a server that speaks MCP on its stdin and stdout
	// (the stdio transport). Args are its arguments.
	Command string
	Args    []string
	// Env is added to the parent's environment for Command, as
	// "KEY=VALUE" entries; a later entry wins. Default: the parent's
	// environment only.
	Env []string
	// Dir is Command's working directory. Default: the parent's.
	Dir string

	// URL reaches a server over the streamable HTTP transport.
	URL string
	// Headers are added to every request to URL (an Authorization
	// header, say). Default none.
	Headers map[string]string
	// HTTPClient makes URL's requests. Default: http.DefaultClient.
	HTTPClient *http.Client

	// Transport reaches the server some other way (an in-process server,
	// say). It is used for one connection only.
	Transport sdk.Transport

	// Exposure is the exposure of every tool of the server (direct,
	// deferred, code_mode_only, ...) when Policy is nil. Default Direct.
	Exposure registry.Exposure
	// Policy, when set, chooses the exposure of every tool of the server
	// from the session's settings and the surfaces the server's tools are
	// left off (the per-server "omit tools from"), overriding Exposure.
	// Default nil.
	Policy *registry.ExposurePolicy
	// Description describes the server's namespace in tool_search and
	// the exec description. Default: the instructions the server sent
	// when it connected, cut to their first 2,000 characters.
	Description string
	// Sequential makes calls to the server's tools run alone, one at a time
	// among all non-parallel tools. Default false: they run alongside other
	// parallel calls (an MCP server serves concurrent requests).
	Sequential bool
	// Tools are the server's tools as it listed them before (cached from an
	// earlier session). Attach registers them at once, and calls to them
	// wait until the server is ready; the real listing replaces them.
	// Default none: tools are registered once the server lists them.
	Tools []*sdk.Tool

	// ConnectTimeout bounds connecting and the first listing. Default
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// StopTimeout is how long Close waits for a command server to exit
	// after closing its stdin before terminating it. Default
	// DefaultStopTimeout.
	StopTimeout time.Duration
	// OnToolsChanged, when set, is called with the server's tool names
	// (as it lists them) each time a listing was applied to the registry.
	// It is called from the goroutine that applied it, with the server's
	// lock held: it must not call the Server's methods. Default none.
	OnToolsChanged func(names []string)
	// Logger receives the server's stderr lines (at debug level), list
	// refreshes and failures. Default: discard.
	Logger hclog.Logger
}

var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Namespace is the namespace of the tools of the server named name.
func Namespace(name string) string { return "mcp__" + name + "__" }

func (c *ServerConfig) check() error {
	if !serverNameRE.MatchString(c.Name) {
		return fmt.Errorf("mcp: server name %q is not valid; use letters, digits, '_' and '-' only", c.Name)
	}
	n := 0
	for _, set := range []bool{c.Command != "", c.URL != "", c.Transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("mcp: server %q needs exactly one of Command, URL and Transport; got %d", c.Name, n)
	}
	return nil
}

func (c *ServerConfig) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}

func (c *ServerConfig) stopTimeout() time.Duration {
	if c.StopTimeout > 0 {
		return c.StopTimeout
	}
	return DefaultStopTimeout
}

func (c *ServerConfig) logger() hclog.Logger {
	if c.Logger != nil {
		return c.Logger.With("mcp_server", c.Name)
	}
	return hclog.NewNullLogger()
}
