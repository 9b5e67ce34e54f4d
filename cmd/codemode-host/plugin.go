package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/codemode-host/codemode-host/launch"
	"github.com/codemode-host/codemode-host/protocol"
)

// servePlugin serves frames on fd 3 (in) and fd 4 (out) while go-plugin
// runs its handshake and control RPC on stdout and a socket. It returns the
// exit status: 0 when go-plugin asks the host to quit or after the frames
// ended (shutdown or end of fd 3), 2 for a rejected handshake or broken
// framing. It runs on the main goroutine.
func servePlugin() int {
	log := newHostLogger(os.Stderr) // before plugin.Serve swaps os.Stderr
	limits, err := hostLimits()
	if err != nil {
		log.Error("bad host limits", "error", err)
		return 2
	}
	in, out := os.NewFile(3, "frames-in"), os.NewFile(4, "frames-out")
	framesDone := make(chan error, 1)
	var shutdown atomic.Bool
	go func() { framesDone <- serveFrames(in, out, limits, log, func() { shutdown.Store(true) }) }()
	quit := make(chan struct{})
	go func() {
		plugin.Serve(&plugin.ServeConfig{
			HandshakeConfig:  launch.Handshake,
			VersionedPlugins: launch.PluginSets(Version),
			Logger:           log.Named("plugin"),
		})
		close(quit)
	}()
	select {
	case err := <-framesDone:
		if err != nil {
			return 2
		}
		if shutdown.Load() {
			// After shutdown the bridge ends us through go-plugin (a
			// graceful quit); don't linger if it does not.
			select {
			case <-quit:
				time.Sleep(quitLinger)
			case <-time.After(pluginQuitWait):
			}
		}
		return 0 // end of fd 3: the parent is gone or done with us
	case <-quit:
		time.Sleep(quitLinger)
		return 0
	}
}

// quitLinger is how long the host stays up after go-plugin's quit.
// go-plugin ends Serve before it writes the reply to Control.Quit, and the
// parent closes its control stream right after that reply: a host that
// exits at once can cut both off, and the parent's yamux then prints
// "[ERR] yamux: Failed to write header: ... broken pipe" to the parent's
// stderr (the header was the control stream's FIN).
const quitLinger = 5 * time.Millisecond

// pluginQuitWait is how long a host whose frames ended waits for
// go-plugin's quit before it exits anyway.
const pluginQuitWait = 2 * time.Second

// hostLimits reads the host's limits from launch.LimitsEnv (JSON of
// protocol.Limits); unset means the defaults.
func hostLimits() (protocol.Limits, error) {
	var l protocol.Limits
	s := os.Getenv(launch.LimitsEnv)
	if s == "" {
		return l, nil
	}
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return l, fmt.Errorf("%s is not the JSON of protocol limits (for example {\"wall_ms\": 60000}): %w", launch.LimitsEnv, err)
	}
	return l, nil
}
