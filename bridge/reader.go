package bridge

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
)

// How the bridge reads the host's frames and answers its tool calls: the
// one place its latency machinery lives.
//
// The plain way is one reader and one writer: one goroutine reads every
// frame and dispatches it, each tool call runs on its own goroutine, and
// every frame the bridge sends goes through one protocol.Sender.
//
// A sequential call then costs the parent two goroutine hand-offs (reader
// to the call's goroutine, and back through the Sender), each a thread
// wake-up and, where the host and its parent share a CPU, a context
// switch. Two speed-ups take them off the path; bench/README.md ("Where a
// sequential call's time goes") has what each saves:
//
//   - Inline calls. A tool call that arrives alone (no other call running,
//     nothing more already read) runs on the reading goroutine, which
//     writes its answer itself (Sender.SendInline). While the executor runs
//     nobody reads, so a long inline call hands the reader role on: the
//     watchdog, ticking while calls run inline, starts a new reader when it
//     sees the same inline call running across a whole tick, and any
//     request made on the Conn meanwhile (an executor that calls back into
//     the Conn waits for a reply only a reader can deliver) does so at
//     once. The goroutine that ran the call then ends instead of reading
//     on. Calls arriving in a burst, or while another call runs, each get
//     their own goroutine.
//   - Polling for the next call. After an inline answer, the reader's next
//     read of a pipe polls for the host's next frame for a while before it
//     parks in the runtime's poller (pollingReader, Linux only).

// inlineWatchPeriod is the watchdog's tick: an inline call that keeps the
// reader longer than one to two ticks is handed off.
var inlineWatchPeriod = time.Millisecond // a variable for tests; read by NewConn

// inlineWatchIdle is how many ticks without an inline call stop the
// watchdog (it restarts with the next one).
const inlineWatchIdle = 100

// readerRole tracks who reads. Its methods are safe from any goroutine.
type readerRole struct {
	fr         *protocol.FrameReader // set before the first reader starts
	poller     *pollingReader        // what fr reads when the input is a pipe; else nil
	watchEvery time.Duration         // inlineWatchPeriod when the Conn was made

	mu       sync.Mutex
	seq      uint64 // inline calls begun; the token of the newest
	cur      uint64 // token of the inline call the reader runs, 0 when it reads
	watching bool   // the watchdog runs
}

// readLoop reads and dispatches frames until the stream ends, then fails
// everything pending; or until it hands the reader role on during an
// inline call, then it just returns.
func (c *Conn) readLoop() {
	fr := c.rd.fr
	var err error
	for {
		var m protocol.Message
		m, err = fr.ReadMessage()
		if err != nil {
			if protocol.IsFatal(err) || errors.Is(err, io.EOF) {
				break
			}
			c.badMessage(err)
			continue
		}
		if call, ok := m.(*protocol.ToolCallRequest); ok {
			if !c.startToolCall(call, fr.Buffered() == 0) {
				return // another goroutine reads now
			}
			continue
		}
		c.dispatch(m)
	}
	if c.closing.Load() && !protocol.IsFatal(err) {
		c.shutdown(ErrClosed)
		return
	}
	if gave := c.gaveUp.Load(); gave != nil {
		err = *gave // the end of the stream was the kill
	}
	var pe *protocol.ProtocolError
	if errors.As(err, &pe) && pe.Fatal {
		// Broken framing (a frame over the cap, a zero length): nothing
		// more can be read, and the host may keep writing. Give up on it.
		c.abandon(err)
		return
	}
	c.shutdown(c.died(err))
}

// beginInline marks the reader busy with an inline call and returns the
// call's token; it starts the watchdog when it is not running.
func (r *readerRole) beginInline(c *Conn) uint64 {
	r.mu.Lock()
	r.seq++
	r.cur = r.seq
	tok, start := r.seq, !r.watching
	r.watching = true
	r.mu.Unlock()
	if start {
		go r.watch(c)
	}
	return tok
}

// endInline ends the inline call tok and reports whether its goroutine
// still holds the reader role.
func (r *readerRole) endInline(tok uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != tok {
		return false // handed off while the call ran
	}
	r.cur = 0
	return true
}

// handOff starts a new reader if the current one runs an inline call.
func (r *readerRole) handOff(c *Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handOffLocked(c)
}

func (r *readerRole) handOffLocked(c *Conn) {
	if r.cur != 0 {
		r.cur = 0
		go c.readLoop()
	}
}

// watch hands off an inline call still running after a whole tick. It
// stops after inlineWatchIdle ticks without inline calls, or when the
// connection ends.
func (r *readerRole) watch(c *Conn) {
	t := time.NewTicker(r.watchEvery)
	defer t.Stop()
	var seen uint64 // r.seq at the previous tick
	idle := 0
	for {
		select {
		case <-c.done:
			r.mu.Lock()
			r.watching = false
			r.mu.Unlock()
			return
		case <-t.C:
		}
		r.mu.Lock()
		switch {
		case r.cur != 0 && r.cur == seen:
			r.handOffLocked(c)
		case r.cur == 0 && r.seq == seen:
			if idle++; idle >= inlineWatchIdle {
				r.watching = false
				r.mu.Unlock()
				return
			}
		default:
			idle = 0
		}
		seen = r.seq
		r.mu.Unlock()
	}
}

// startToolCall answers one tool call: on its own goroutine, or inline on
// the reader's when alone is set and no other call runs (see reader.go).
// It reports whether the calling goroutine still holds the reader role.
func (c *Conn) startToolCall(m *protocol.ToolCallRequest, alone bool) bool {
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	inline := alone && len(c.calls) == 0
	c.calls[m.ID] = &toolCall{cell: cellKey{m.SessionID, m.CellID}, cancel: cancel}
	c.mu.Unlock()
	if !inline {
		go c.runToolCall(ctx, cancel, m)
		return true
	}
	tok := c.rd.beginInline(c)
	c.runToolCall(ctx, cancel, m)
	if !c.rd.endInline(tok) {
		return false
	}
	if c.rd.poller != nil {
		c.rd.poller.expect() // the script's next call is likely microseconds away
	}
	return true
}
