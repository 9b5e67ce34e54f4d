package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
)

// leakSource is the cell the leak check repeats: some garbage, one tool
// call, a return value.
const leakSource = `
const a = [];
for (let i = 0; i < 1000; i++) a.push({ i, s: "x" + i });
const r = await tools.echo({ n: a.length });
return r.n;`

// hostSystem is a System backed by a host process, with what the memory
// measurements need.
type hostSystem interface {
	System
	// OpenSession opens another session with the host's default limits.
	OpenSession(ctx context.Context, id string) error
	// Exec runs source as one cell of session to the end.
	Exec(ctx context.Context, session, source string) (*protocol.CellResult, error)
	// RSS is the host process's resident memory in bytes.
	RSS() (uint64, error)
}

// hostLauncher starts a host process one way; each is measured separately.
type hostLauncher struct {
	name  string
	start func(ctx context.Context, bin string) (hostSystem, error)
}

// hostLaunchers are the ways a parent reaches the host, the bridge (a Go
// parent's way, which the targets are for) first.
var hostLaunchers = []hostLauncher{
	{(*BridgeHost)(nil).Name(), func(ctx context.Context, bin string) (hostSystem, error) { return StartBridge(ctx, bin) }},
	{(*StdioHost)(nil).Name(), func(ctx context.Context, bin string) (hostSystem, error) { return StartStdio(ctx, bin) }},
}

// measureMemory starts fresh hosts for the cold start, idle memory and
// leak check (so the scenarios' garbage doesn't count). It returns what it
// measured before any error.
func measureMemory(ctx context.Context, l hostLauncher, opt Options) (*Memory, error) {
	mem := &Memory{System: l.name}
	var ready, first []time.Duration
	for range opt.ColdStarts {
		start := time.Now()
		h, err := l.start(ctx, opt.HostBin)
		if err != nil {
			return mem, err
		}
		ready = append(ready, time.Since(start))
		_, err = h.Run(ctx, "return 1")
		first = append(first, time.Since(start))
		if cerr := h.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return mem, err
		}
	}
	mem.ColdReady, mem.ColdFirstCell = statOf(ready), statOf(first)

	h, err := l.start(ctx, opt.HostBin)
	if err != nil {
		return mem, err
	}
	defer h.Close()
	if err := idleMemory(ctx, h, opt.Sessions, mem); err != nil {
		return mem, err
	}
	return mem, leakCheck(ctx, h, opt.LeakCells, mem)
}

// idleMemory measures the host with one open, unused session, then the
// growth per extra session that has run one cell and is idle.
func idleMemory(ctx context.Context, h hostSystem, sessions int, mem *Memory) error {
	rss, err := h.RSS()
	if err != nil {
		return err
	}
	mem.IdleHostMB = mb(rss)
	if _, err := h.Run(ctx, "return 1"); err != nil {
		return err
	}
	before, err := h.RSS()
	if err != nil {
		return err
	}
	for i := range sessions {
		id := fmt.Sprintf("idle-%d", i)
		if err := h.OpenSession(ctx, id); err != nil {
			return err
		}
		res, err := h.Exec(ctx, id, "store('k', 1); return 1")
		if err == nil {
			_, err = returnValue(res.Status, res.Error, res.Items)
		}
		if err != nil {
			return fmt.Errorf("bench: session %s: %w", id, err)
		}
	}
	after, err := h.RSS()
	if err != nil {
		return err
	}
	mem.Sessions = sessions
	mem.PerSessionMB = (mb(after) - mb(before)) / float64(sessions)
	return nil
}

// leakCheck runs cells one after another in one session, sampling the
// host's RSS every tenth of the way.
func leakCheck(ctx context.Context, h hostSystem, cells int, mem *Memory) error {
	step := max(1, cells/10)
	mem.LeakCells = cells
	for i := 1; i <= cells; i++ {
		res, err := h.Exec(ctx, hostSession, leakSource)
		if err != nil {
			return err
		}
		if _, err := returnValue(res.Status, res.Error, res.Items); err != nil {
			return fmt.Errorf("bench: leak check cell %d: %w", i, err)
		}
		if i == 1 {
			mem.HeapPeakFirstMB = mb(res.Stats.HeapPeak)
		}
		if i == cells {
			mem.HeapPeakLastMB = mb(res.Stats.HeapPeak)
		}
		if i%step == 0 {
			rss, err := h.RSS()
			if err != nil {
				return err
			}
			mem.RSSSamples = append(mem.RSSSamples, RSSSample{Cells: i, RSSMB: mb(rss)})
		}
	}
	if len(mem.RSSSamples) < 2 {
		return errors.New("bench: the leak check needs at least 2 RSS samples")
	}
	return nil
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
