package hostserver

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// exitInsideIncludes calls exit() inside a generic includes that V8 does
// not interrupt for about a second; the notify comes right before.
const exitInsideIncludes = `Array.prototype.includes.call({length: 1e8, get 0() { notify("in"); exit(); return 0; }}, 1)`

func TestEveryStopIsFinalAStuckExitAnswersTerminateAndClose(t *testing.T) {
	// No Config.OnStuck: the host reports the cell and serves on.
	p := startHost(t, Config{Runtime: runtime.Config{StuckAfter: 50 * time.Millisecond}})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.start(&protocol.Exec{Session: "s1", YieldMS: 60_000, Source: exitInsideIncludes})
	termID := p.id()
	for {
		if n, ok := p.next().(*protocol.Notify); ok && n.Cell == cellID {
			break
		}
	}
	p.send(&protocol.Terminate{ID: termID, Session: "s1", Cell: cellID})
	res, _ := p.result(execID)
	assert.Equal(t, protocol.StatusCompleted, res.Status, "the first stop, exit(), keeps its status")
	require.NotNil(t, res.Error)
	assert.Equal(t, protocol.ErrorNameStuck, res.Error.Name)
	assert.Contains(t, res.Error.Message, "exit()")
	term, _ := p.result(termID)
	assert.Equal(t, protocol.StatusCompleted, term.Status)

	closeID := p.id()
	p.send(&protocol.CloseSession{ID: closeID, Session: "s1"})
	for {
		if m, ok := p.next().(*protocol.SessionClosed); ok {
			assert.Equal(t, closeID, m.ID)
			break
		}
	}
}

func TestYieldedStatsAreTheFiguresSoFar(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	id, _ := p.start(&protocol.Exec{Session: "s1", YieldMS: 300, Source: `const a = new Array(1e5).fill(1);
const t0 = Date.now(); while (Date.now() < t0 + 100); await new Promise(r => setTimeout(r, 60000))`})
	res, _ := p.result(id)
	require.Equal(t, protocol.StatusYielded, res.Status)
	assert.Positive(t, res.Stats.CPUMS, "%+v", res.Stats)
	assert.Positive(t, res.Stats.HeapPeak, "%+v", res.Stats)
	assert.GreaterOrEqual(t, res.Stats.WallMS, 300.0)
}

func TestOutputBudgetBoundsEveryResultWhateverOutputTokens(t *testing.T) {
	p := startHost(t, Config{Limits: protocol.Limits{OutputTokens: math.MaxUint32}})
	p.handshake()
	p.openSession("s1")
	id, _ := p.start(&protocol.Exec{Session: "s1", Stream: true,
		Source: `for (let i = 0; i < 38000; i++) console.log(i % 10); image('data:text/plain,' + 'A'.repeat(9e5)); return 1`})
	res, _ := p.result(id) // the frame decoded: within MaxItems and FrameBytes
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.True(t, res.Truncated)
	assert.LessOrEqual(t, len(res.Items), runtime.MaxResultItems)
	assert.Equal(t, "0", res.Items[0].Text)
	assert.Equal(t, "1", res.Items[len(res.Items)-1].Text, "the return value is kept")
}

func TestOutputBudgetCoversYieldedResultsAndErrors(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	id, cellID := p.start(&protocol.Exec{Session: "s1", YieldMS: 200, MaxOutputTokens: 500,
		Source: `for (let i = 0; i < 5000; i++) console.log("line " + i); await new Promise(r => setTimeout(r, 500));
throw new Error("<" + "m".repeat(1e6) + ">")`})
	y, _ := p.result(id)
	require.Equal(t, protocol.StatusYielded, y.Status)
	assert.True(t, y.Truncated)
	assert.Equal(t, "line 0", y.Items[0].Text)
	assert.Equal(t, "line 4999", y.Items[len(y.Items)-1].Text)
	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000})
	res, _ := p.result(waitID)
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.True(t, res.Truncated)
	assert.True(t, strings.HasPrefix(res.Error.Message, "<"))
	assert.True(t, strings.HasSuffix(res.Error.Message, ">"))
	assert.Less(t, len(res.Error.Message)+len(res.Error.Stack), 500*4)
}

func TestRefusedCellResultStillAnswersItsRequest(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	// A result the encoder refuses: over the frame cap.
	p.srv.send(&protocol.CellResult{ID: 77, Session: "s1", Cell: "c1", Status: protocol.StatusCompleted,
		Items: []protocol.Item{{Type: protocol.ItemText, Text: strings.Repeat("x", protocol.DefaultMaxFrame)}},
		Error: &protocol.ErrorInfo{Name: "Error", Message: strings.Repeat("e", 1<<20)}})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, uint64(77), res.ID)
	assert.Equal(t, protocol.StatusCompleted, res.Status)
	assert.True(t, res.Truncated)
	require.Len(t, res.Items, 1)
	assert.Contains(t, res.Items[0].Text, "could not encode it")
	require.NotNil(t, res.Error)
	assert.Less(t, len(res.Error.Message), 16<<10)
}

func TestSessionOpenWithAStoreOverStoreBytesIsLimitExceeded(t *testing.T) {
	p := startHost(t, Config{})
	p.handshakeStore()
	value := json.RawMessage(`"` + strings.Repeat("v", 1000) + `"`)
	var store []protocol.StoreEntry
	for i := range 10 {
		store = append(store, protocol.StoreEntry{Key: fmt.Sprintf("k%d", i), Value: value})
	}
	size := 10 * protocol.StoreCost("k0", value)
	id := p.id()
	p.send(&protocol.OpenSession{ID: id, Session: "s1", Store: store, Limits: &protocol.Limits{StoreBytes: 5000}})
	e := expect[*protocol.ErrorReply](p)
	assert.Equal(t, id, e.ID)
	assert.Equal(t, protocol.ErrCodeLimitExceeded, e.Code)
	assert.Contains(t, e.Message, fmt.Sprintf("is %d bytes", size))
	assert.Contains(t, e.Message, "limit of 5000")

	p.send(&protocol.OpenSession{ID: p.id(), Session: "s1", Store: store[:2], Limits: &protocol.Limits{StoreBytes: 5000}})
	expect[*protocol.SessionOpened](p)
}

func TestDeeplyNestedCellsFailCleanlyAndTheNextCellRuns(t *testing.T) {
	p := startHost(t, Config{})
	p.send(&protocol.Hello{ID: p.id(), Versions: []uint32{1}, Capabilities: []string{protocol.CapTypeScript}})
	expect[*protocol.HelloOK](p)
	p.openSession("s1")
	deep := strings.Repeat("(", 300_000) + "1" + strings.Repeat(")", 300_000)
	for _, lang := range []protocol.Language{protocol.LangTS, protocol.LangJS} {
		id, _ := p.start(&protocol.Exec{Session: "s1", Language: lang, Source: "return " + deep})
		res, _ := p.result(id)
		require.Equal(t, protocol.StatusFailed, res.Status, "%s", lang)
		require.NotNil(t, res.Error)
		assert.Contains(t, []string{"SyntaxError", "RangeError"}, res.Error.Name, "%s: %+v", lang, res.Error)
		id, _ = p.start(&protocol.Exec{Session: "s1", Language: lang, Source: "return 2"})
		res, _ = p.result(id)
		require.Equal(t, protocol.StatusCompleted, res.Status)
		assert.Equal(t, "2", res.Items[0].Text)
	}
}
