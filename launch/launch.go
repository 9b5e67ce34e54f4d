// Package launch is the contract between the two processes that the
// protocol itself does not carry: the go-plugin handshake through which
// bridge launches the host binary, and the environment variables the host
// reads. Both sides import it, so each name has one home.
package launch

import (
	"net/rpc"
	"os"

	"github.com/hashicorp/go-plugin"

	"github.com/codemode-host/codemode-host/protocol"
)

// Handshake is the go-plugin handshake between the bridge and the host
// binary. The host serves in plugin mode when it finds the cookie in its
// environment (Launched); the cookie is a guard against running the
// binary by hand in this mode, not a secret.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  uint(protocol.Version1),
	MagicCookieKey:   "CODEMODE_HOST_PLUGIN",
	MagicCookieValue: "frames-on-fd3-fd4",
}

// Launched reports whether this process was started through go-plugin
// with Handshake (its magic cookie is in the environment).
func Launched() bool {
	return os.Getenv(Handshake.MagicCookieKey) == Handshake.MagicCookieValue
}

// The environment variables a host reads. LimitsEnv and CellPrefixEnv are
// set by the bridge; the others are for a person or a test.
const (
	// LimitsEnv carries the host's limits as the JSON of protocol.Limits
	// (bridge.Config.HostLimits).
	LimitsEnv = "CODEMODE_HOST_LIMITS"
	// CellPrefixEnv gives a restarted host a prefix for its cell ids ("r2."
	// for the second host), so cell ids of a dead host are never reused.
	CellPrefixEnv = "CODEMODE_HOST_CELL_PREFIX"
	// StuckAfterEnv sets how long a stopped cell may take to end (a Go
	// duration, default 5s).
	StuckAfterEnv = "CODEMODE_HOST_STUCK_AFTER"
	// LogLevelEnv sets the host's log level (trace … error; default info).
	LogLevelEnv = "CODEMODE_HOST_LOG_LEVEL"
)

// PluginName is the one plugin the host serves through go-plugin's net/rpc
// (its only method reports the host version); the protocol itself travels
// on the fd 3/4 pipes.
const PluginName = "codemode-host"

// PluginSets are the go-plugin plugin sets by protocol version, for
// plugin.ServeConfig.VersionedPlugins on the host (with the host's
// version) and plugin.ClientConfig.VersionedPlugins in the bridge.
func PluginSets(hostVersion string) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		int(protocol.Version1): {PluginName: &HostPlugin{Version: hostVersion}},
	}
}

// HostPlugin is the go-plugin net/rpc plugin of the host. It exists so
// go-plugin's process management (handshake, version negotiation, ping,
// graceful kill) works; frames never go through it.
type HostPlugin struct {
	// Version is the host's version, reported by HostInfo.Version.
	Version string
}

// Server implements plugin.Plugin (host side).
func (p *HostPlugin) Server(*plugin.MuxBroker) (any, error) {
	return &HostInfo{version: p.Version}, nil
}

// Client implements plugin.Plugin (bridge side).
func (p *HostPlugin) Client(_ *plugin.MuxBroker, c *rpc.Client) (any, error) {
	return &HostInfoClient{c: c}, nil
}

// HostInfo is the net/rpc service of HostPlugin. Its methods are called
// by net/rpc on its own goroutines.
type HostInfo struct{ version string }

// Version reports the host's version.
func (h *HostInfo) Version(_ struct{}, reply *string) error {
	*reply = h.version
	return nil
}

// HostInfoClient is the bridge's side of HostInfo.
type HostInfoClient struct{ c *rpc.Client }

// Version asks the host for its version.
func (h *HostInfoClient) Version() (string, error) {
	var v string
	err := h.c.Call("Plugin.Version", struct{}{}, &v)
	return v, err
}
