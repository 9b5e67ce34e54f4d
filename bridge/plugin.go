package bridge

import (
	"net/rpc"

	"github.com/hashicorp/go-plugin"

	"github.com/codemode-host/codemode-host/protocol"
)

// Handshake is the go-plugin handshake between the bridge and the host
// binary. The host serves in plugin mode when it finds the cookie in its
// environment (see IsPluginLaunch); the cookie is a guard against running
// the binary by hand in this mode, not a secret.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  uint(protocol.Version1),
	MagicCookieKey:   "CODEMODE_HOST_PLUGIN",
	MagicCookieValue: "frames-on-fd3-fd4",
}

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
	return &hostInfoClient{c: c}, nil
}

// HostInfo is the net/rpc service of HostPlugin. Its methods are called
// by net/rpc on its own goroutines.
type HostInfo struct{ version string }

// Version reports the host's version.
func (h *HostInfo) Version(_ struct{}, reply *string) error {
	*reply = h.version
	return nil
}

type hostInfoClient struct{ c *rpc.Client }

func (h *hostInfoClient) version() (string, error) {
	var v string
	err := h.c.Call("Plugin.Version", struct{}{}, &v)
	return v, err
}
