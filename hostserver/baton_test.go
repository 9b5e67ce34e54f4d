//go:build linux

package hostserver

import (
	"os"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// withTwoPs gives the test a second P: a loop polls, and the reader lends
// it the input, only then (even on a one-CPU machine).
func withTwoPs(t *testing.T) {
	procs := goruntime.GOMAXPROCS(2)
	t.Cleanup(func() { goruntime.GOMAXPROCS(procs) })
}

// pipeBaton returns a baton over a fresh os.Pipe and the pipe's writer.
func pipeBaton(t *testing.T) (*baton, *os.File) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	avail := inputAvail(r)
	require.NotNil(t, avail, "a pipe can be lent")
	return newBaton(protocol.NewFrameReader(r, 0), avail), w
}

// holdLease makes the reader wait d for a loop's poll before it takes its
// input back, for the rest of the test. Call it before the host starts.
func holdLease(t *testing.T, d time.Duration) {
	old := leaseCheck
	leaseCheck = d
	t.Cleanup(func() { leaseCheck = old })
}

// lendIn lends b on its own goroutine, as the reader does, and returns a
// channel closed when the input is back. With hold, the lease does not
// run out while the test runs; the test must then get the input back.
func lendIn(t *testing.T, b *baton, hold bool) chan struct{} {
	if hold {
		holdLease(t, time.Hour)
	}
	back := make(chan struct{})
	since := b.stops()
	go func() {
		b.lend(since)
		close(back)
	}()
	for !b.lent.Load() {
		select {
		case <-back:
			return back // lent and back already
		case <-time.After(time.Millisecond):
		}
	}
	return back
}

func writeFrame(t *testing.T, w *os.File, m protocol.Message) []byte {
	frame, err := protocol.AppendFrame(nil, m)
	require.NoError(t, err)
	_, err = w.Write(frame)
	require.NoError(t, err)
	return frame
}

func TestInputAvailOnlyForPipesAndSockets(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "input")
	require.NoError(t, err)
	defer f.Close()
	assert.Nil(t, inputAvail(f), "a regular file")
	assert.Nil(t, inputAvail(os.NewFile(^uintptr(0), "bad")), "no file")
}

func TestLoopReadsAWholeToolResultOnly(t *testing.T) {
	b, w := pipeBaton(t)
	back := lendIn(t, b, true)
	var got []*protocol.ToolResult
	deliver := func(r *protocol.ToolResult) { got = append(got, r) }

	assert.False(t, b.poll(deliver), "nothing has arrived")
	frame, err := protocol.AppendFrame(nil, &protocol.ToolResult{ID: 7, Value: []byte(`{"a":1}`)})
	require.NoError(t, err)
	_, err = w.Write(frame[:len(frame)-2])
	require.NoError(t, err)
	assert.False(t, b.poll(deliver), "half a frame is not read (the read would block)")
	_, err = w.Write(frame[len(frame)-2:])
	require.NoError(t, err)
	require.True(t, b.poll(deliver))
	require.Len(t, got, 1)
	assert.Equal(t, uint64(7), got[0].ID)
	assert.JSONEq(t, `{"a":1}`, string(got[0].Value))
	assert.True(t, b.lent.Load(), "a tool.result keeps the input with the loops")

	b.done()
	<-back
	assert.False(t, b.poll(deliver), "a loop reads only a lent input")
}

func TestLoopHandsOtherFramesToTheReader(t *testing.T) {
	b, w := pipeBaton(t)
	back := lendIn(t, b, true)
	writeFrame(t, w, &protocol.Ping{ID: 3})
	writeFrame(t, w, &protocol.ToolResult{ID: 4})
	delivered := false
	require.True(t, b.poll(func(*protocol.ToolResult) { delivered = true }))
	assert.False(t, delivered)
	<-back // the ping came with the input
	res := b.read()
	require.NoError(t, res.err)
	assert.Equal(t, &protocol.Ping{ID: 3}, res.m)
	res = b.read()
	require.NoError(t, res.err)
	assert.Equal(t, uint64(4), res.m.(*protocol.ToolResult).ID, "the reader reads on from where the loop stopped")
}

func TestLoopHandsABrokenStreamToTheReader(t *testing.T) {
	b, w := pipeBaton(t)
	back := lendIn(t, b, true)
	_, err := w.Write([]byte{0, 0, 0, 0})
	require.NoError(t, err)
	require.True(t, b.poll(func(*protocol.ToolResult) { t.Error("delivered") }))
	<-back
	res := b.read()
	var pe *protocol.ProtocolError
	require.ErrorAs(t, res.err, &pe, "the reader gets the fatal error to handle")
	assert.Equal(t, protocol.ErrCodeBadFrame, pe.Code)
}

// A loop that ends just as the reader takes the input back must not wait
// for mu: the reader holds it while it blocks in read, and the parent may
// send nothing until it has this cell's result (a deadlock, seen under
// load as a cell that hung until its yield time).
func TestLoopDoesNotWaitForAReaderThatTookTheInputBack(t *testing.T) {
	b, _ := pipeBaton(t)
	b.lent.Store(true)
	b.mu.Lock() // the reader's lease ran out: it is taking the input back
	done := make(chan struct{})
	go func() {
		b.done() // the loop's cell ends: it saw the input lent
		close(done)
	}()
	time.Sleep(10 * time.Millisecond)
	b.lent.Store(false) // taken back; the reader keeps mu, blocked in read
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the loop waits for a reader blocked in read")
	}
	b.mu.Unlock()
}

// A loop that stopped polling between the answer's delivery and the
// lending (its cell ended) will not give the input back: lend must not
// wait for the lease.
func TestReaderKeepsTheInputWhenTheLoopStoppedBeforeTheLending(t *testing.T) {
	b, _ := pipeBaton(t)
	holdLease(t, time.Hour)
	since := b.stops()
	b.done() // the cell ended before the reader lent
	returned := make(chan struct{})
	go func() {
		b.lend(since)
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("lend waits for a loop that already stopped")
	}
	assert.False(t, b.lent.Load())
}

func TestReaderTakesTheInputBackWhenNoLoopPolls(t *testing.T) {
	b, _ := pipeBaton(t)
	back := lendIn(t, b, false)
	select {
	case <-back:
	case <-time.After(5 * time.Second):
		t.Fatal("the lease never ended")
	}
	assert.False(t, b.lent.Load())
}

// answerCalls answers every tool call with its input until the cell's
// result arrives, and returns it.
func answerCalls(p *parent) *protocol.CellResult {
	p.t.Helper()
	for {
		switch m := p.next().(type) {
		case *protocol.ToolCallRequest:
			p.send(&protocol.ToolResult{ID: m.ID, Value: m.Input})
		case *protocol.CellResult:
			return m
		}
	}
}

// startEchoCell starts a host with a second P and runs source in a cell
// of session s1 with the echo tool. Its loop polls for up to a second for
// each answer, so that it is polling when the answer comes even on a
// loaded machine (with the default 30 µs an answer that takes longer
// finds the loop asleep, and the reader reads it).
func startEchoCell(t *testing.T, source string) *parent {
	withTwoPs(t)
	p := startHost(t, Config{Runtime: runtime.Config{PollBeforeSleep: time.Second}})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool}, Source: source})
	return p
}

func TestSequentialAnswersAreReadByTheLoop(t *testing.T) {
	// On a loaded machine a loop that yields its CPU between looks may not
	// look again for a scheduler's time slice, longer than the 1 ms lease.
	holdLease(t, time.Second)
	p := startEchoCell(t, `let n = 0; for (let i = 0; i < 300; i++) n += (await tools.echo({i})).i; return n`)
	res := answerCalls(p)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "44850", res.Items[len(res.Items)-1].Text)
	require.NotNil(t, p.srv.tr.baton)
	assert.NotZero(t, p.srv.tr.baton.loopReads.Load(), "some answers were read by the loop itself")
	assert.False(t, p.srv.tr.baton.lent.Load(), "the input is back with the reader after the cell")
}

func TestABusyScriptDoesNotKeepTheInputFromOthers(t *testing.T) {
	p := startEchoCell(t, `await tools.echo({}); const t = Date.now(); while (Date.now() - t < 3000) {} return 1`)
	call := expect[*protocol.ToolCallRequest](p)
	p.send(&protocol.ToolResult{ID: call.ID, Value: call.Input})
	// The answer was the one awaited and one cell runs: the input is lent
	// to a loop that now runs script for three seconds.
	time.Sleep(50 * time.Millisecond)
	p.send(&protocol.Ping{ID: 99})
	assert.Equal(t, uint64(99), expect[*protocol.Pong](p).ID, "the pong came before the cell's result: it was read while the script ran")
	assert.Equal(t, protocol.StatusCompleted, expect[*protocol.CellResult](p).Status)
}

// With polling off no loop reads a lent input or gives it back, so the
// reader must not lend it: each answer would wait out the lease.
func TestNoLendingWhenLoopsDoNotPoll(t *testing.T) {
	for _, cfg := range []runtime.Config{{PollBeforeSleep: -1}, {}} {
		noLending(t, cfg)
	}
}

// noLending runs sequential calls on a host whose output (an os.Pipe) is
// no TryWriter, with cfg, and checks that no input was ever lent.
func noLending(t *testing.T, cfg runtime.Config) {
	withTwoPs(t)
	p := startHost(t, Config{Runtime: cfg})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `let n = 0; for (let i = 0; i < 30; i++) n += (await tools.echo({i})).i; return n`})
	res := answerCalls(p)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "435", res.Items[len(res.Items)-1].Text)
	assert.Nil(t, p.srv.tr.baton, "no baton: no loop polls, by request (%v) or because the output is plain", cfg.PollBeforeSleep)
}
