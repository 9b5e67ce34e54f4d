package runtime

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// pipeParent is a Config.Input and an AsyncToolCaller in one: a call to
// "viaPipe" is answered by writing its id to a real pipe, which only a
// pump reads (there is no reader goroutine, so a loop that did not poll
// the input would wait forever); "direct" is answered from another
// goroutine through the mailbox; "release" lets the pipe answers go.
type pipeParent struct {
	r, w *os.File
	fd   int // r's descriptor, non-blocking (r.Fd() would make it blocking)

	mu      sync.Mutex
	waiting map[uint64]func(json.RawMessage, error)
	held    bool
	gate    chan struct{} // closed by "release"
	once    sync.Once

	pumpedByLoop atomic.Int64 // ids a pump read on a worker's thread
	loopTid      atomic.Int64
}

func newPipeParent(t *testing.T) *pipeParent {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	fd := int(r.Fd())
	require.NoError(t, syscall.SetNonblock(fd, true))
	t.Cleanup(func() { r.Close(); w.Close() })
	return &pipeParent{r: r, w: w, fd: fd, waiting: map[uint64]func(json.RawMessage, error){}, gate: make(chan struct{})}
}

func (p *pipeParent) Fd() int { return p.fd }

func (p *pipeParent) Hold() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held {
		return false
	}
	p.held = true
	p.loopTid.Store(int64(syscall.Gettid()))
	return true
}

func (p *pipeParent) Release(pump bool) {
	p.mu.Lock()
	p.held = false
	p.mu.Unlock()
	if pump {
		p.pump()
	}
}

func (p *pipeParent) pump() {
	var b [8]byte
	for {
		n, err := syscall.Read(p.Fd(), b[:])
		if n != 8 || err != nil {
			return
		}
		id := binary.BigEndian.Uint64(b[:])
		p.mu.Lock()
		done := p.waiting[id]
		delete(p.waiting, id)
		p.mu.Unlock()
		if int64(syscall.Gettid()) == p.loopTid.Load() {
			p.pumpedByLoop.Add(1)
		}
		done(json.RawMessage(strconv.FormatUint(id, 10)), nil)
	}
}

func (p *pipeParent) StartToolCall(_ context.Context, call protocol.ToolCall, done func(json.RawMessage, error)) {
	switch call.Name {
	case "direct":
		go func() { done(json.RawMessage(`"direct"`), nil) }()
	case "release":
		p.once.Do(func() { close(p.gate) })
		done(json.RawMessage(`"released"`), nil)
	default:
		p.mu.Lock()
		p.waiting[call.CallID] = done
		p.mu.Unlock()
		go func() {
			<-p.gate
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], call.CallID)
			p.w.Write(b[:])
		}()
	}
}

func (p *pipeParent) CallTool(context.Context, protocol.ToolCall) (json.RawMessage, error) {
	panic("the runtime calls StartToolCall")
}

func runOnInput(t *testing.T, p *pipeParent, src string) Result {
	t.Helper()
	rt := New(Config{Input: p})
	t.Cleanup(rt.Close)
	res, err := rt.Run(context.Background(), CellRequest{Source: src, Caller: p,
		Tools:  []protocol.ToolDef{{Name: "viaPipe"}, {Name: "direct"}, {Name: "release"}},
		Limits: Limits{WallTime: 5 * time.Second}})
	require.NoError(t, err)
	return res
}

func TestALoopReadsItsToolResultsFromTheInputItself(t *testing.T) {
	p := newPipeParent(t)
	close(p.gate)
	p.once.Do(func() {})
	res := runOnInput(t, p, "let s = 0\nfor (let i = 0; i < 50; i++) s += await tools.viaPipe({})\nreturn s")
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{strconv.Itoa(50 * 51 / 2)}, texts(res), "call ids 1..50 came back in order")
	assert.EqualValues(t, 50, p.pumpedByLoop.Load(), "every result was read on the loop's own thread")
}

func TestALoopPollingTheInputIsWokenByItsMailboxAndTimers(t *testing.T) {
	p := newPipeParent(t)
	// The loop polls the pipe for viaPipe's answer, which is only sent
	// after "release"; "direct" (a post to the mailbox) and the timer
	// must wake it meanwhile, or the cell never gets to release.
	res := runOnInput(t, p, `
		const piped = tools.viaPipe({})
		const d = await tools.direct({})
		await new Promise(r => setTimeout(r, 5))
		await tools.release({})
		return [await piped, d]`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`[1,"direct"]`}, texts(res))
}
