package hostserver

import (
	"io"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// transport is how frames travel between the host and its parent, and the
// one place the host's latency machinery lives.
//
// The plain transport, for any io.Reader and io.Writer, is one reader and
// one writer: the reader goroutine (server.readLoop) reads every frame
// and dispatches it, and every frame the host sends goes through one
// protocol.Sender, whose writer goroutine writes what was queued, so a V8
// loop never blocks on the parent.
//
// A sequential tool call on the plain transport costs four thread
// hand-offs in the host (loop to writer, reader to loop, and each
// goroutine's sleep and wake-up), and on a machine where the host and its
// parent share a CPU each is a context switch. Two speed-ups take them
// off the path where the I/O allows; bench/README.md ("Where a sequential
// call's time goes") has what each saves:
//
//   - The loop writes. When the output is a protocol.TryWriter (a pipe or
//     stream socket wrapped by internal/nbpipe), the first frame of a JS
//     turn is written by the loop itself if the pipe has room; the rest of
//     the turn's frames (a Promise.all) are queued and leave together in
//     a few writes (sendFromLoop).
//   - The loop reads. Where the loop writes, the runtime's loops poll
//     for an answer before they sleep (runtime.Config.PollBeforeSleep,
//     defaultPollBeforeSleep), and when the input is a pipe or socket on
//     Linux (inputAvail), after the answer to the only call in flight the
//     reader lends the input to the one polling loop, which reads its
//     next answer itself (see baton).
//
// Polling pays only with the first: a loop that polls while its frame
// waits for the writer goroutine keeps a CPU from the very threads that
// must run before an answer can come. Without a TryWriter (another OS, a
// file, an in-memory pipe) the transport is plain, unless
// Config.Runtime asks for polling itself.
type transport struct {
	fr    *protocol.FrameReader
	fast  bool       // the output is a TryWriter: the loop writes
	avail func() int // inputAvail of the input; nil when it cannot be lent
	baton *baton     // the loop reads: set when the input can be lent and loops poll; else nil
}

// defaultPollBeforeSleep is how long a host's loop polls for its answer
// before it sleeps (runtime.Config.PollBeforeSleep), unless Config.Runtime
// says otherwise: the parent answers a quick tool within about this long.
const defaultPollBeforeSleep = 30 * time.Microsecond

func newTransport(r io.Reader, w io.Writer) *transport {
	_, fast := w.(protocol.TryWriter)
	return &transport{fr: protocol.NewFrameReader(r, protocol.DefaultMaxFrame), fast: fast, avail: inputAvail(r)}
}

// runtimeConfig is cfg with the transport's polling (by default only
// where the loop writes) and, when loops poll and the input can be lent,
// the baton they read it through. Called once, before the runtime
// exists.
func (t *transport) runtimeConfig(s *server, cfg runtime.Config) runtime.Config {
	if cfg.PollBeforeSleep == 0 && t.fast {
		cfg.PollBeforeSleep = defaultPollBeforeSleep
	}
	if cfg.PollBeforeSleep > 0 && t.avail != nil {
		t.baton = newBaton(t.fr, t.avail)
		cfg.Input = loopInput{s}
	}
	return cfg
}

// read reads the parent's next frame. Reader goroutine only.
func (t *transport) read() readResult {
	if t.baton != nil {
		return t.baton.read()
	}
	return readNext(t.fr)
}

// dispatch hands m to s.dispatch and, when it was the answer to the only
// call in flight and the one running loop polls, lends the input to that
// loop until it gives it back (see lendable). Reader goroutine only.
func (t *transport) dispatch(s *server, m protocol.Message) {
	if t.baton == nil {
		s.dispatch(m)
		return
	}
	stops := t.baton.stops()
	s.dispatch(m)
	if _, ok := m.(*protocol.ToolResult); ok && t.lendable(s) {
		t.baton.lend(stops)
	}
}

// lendable reports whether the reader, having just delivered a tool
// call's answer, should lend the input to the loops: the answer was the
// last one awaited and the one loop running polls (runtime.LoopPolls),
// which looks like a script awaiting its calls one by one (it will likely
// call again and poll for the answer). Only a polling loop reads a lent
// input or gives it back; lent to none, every answer would wait out the
// lease. A burst of answers (Promise.all) is read faster by the reader in
// parallel with the loop. Reader goroutine only.
func (t *transport) lendable(s *server) bool {
	return s.rt != nil && s.rt.LoopPolls() && s.tools.waiting() == 0
}

// loopInput is the runtime's Config.Input: a polling loop reads the
// parent's frames itself while the input is lent to it (see baton).
type loopInput struct{ s *server }

// PollInput implements runtime.InputPoller. Loop only.
func (in loopInput) PollInput() bool { return in.s.tr.baton.poll(in.s.toolResult) }

// PollDone implements runtime.InputPoller: it gives a lent input back
// to the reader goroutine. Loop only.
func (in loopInput) PollDone() { in.s.tr.baton.done() }

// sendFromLoop returns how a cell's loop sends its next frame: the first
// frame of a JS turn with Send (written by the loop itself when the
// output allows, see protocol.TryWriter), the rest of the turn with Queue,
// so a burst piles up for the writer goroutine, which sends it in a few
// writes instead of one system call per frame. Loop only.
func (c *cell) sendFromLoop() func(protocol.Message) error {
	c.burst++
	if c.burst > 1 {
		return c.srv.out.Queue
	}
	return c.srv.out.Send
}

// Turn implements runtime.Events: a JS turn begins. Loop goroutine.
func (c *cell) Turn() { c.burst = 0 }
