package hostserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// The rules of docs/PROTOCOL.md a client written from the spec alone had
// to guess (issue #19), each pinned through the protocol.

func TestExecIsNotAnsweredByOutputOrNotifyOnlyByItsEnd(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	id, _ := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `console.log("a"); notify("n"); await tools.echo({}); text("b"); return 1`})
	// Output and a notify came before the tool call; the exec stays
	// pending until the cell ends.
	assert.Equal(t, "n", expect[*protocol.Notify](p).Text)
	call := expect[*protocol.ToolCallRequest](p)
	p.send(&protocol.ToolResult{ID: call.ID, Value: json.RawMessage(`{}`)})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, id, res.ID)
	assert.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"a", "b", "1"}, texts(res.Items))
}

func TestExecIsAnsweredEarlyByYieldControl(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	id, _ := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `text("a"); yield_control(); await tools.echo({})`})
	res, _ := p.result(id)
	assert.Equal(t, protocol.StatusYielded, res.Status)
	assert.Equal(t, []string{"a"}, texts(res.Items))
}

func TestEveryRequestWithAnIDInFlightIsRefusedWithDuplicateID(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	p.openSession("s2")
	id, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({}); return "done"`})
	call := expect[*protocol.ToolCallRequest](p)
	for _, m := range []protocol.Message{
		&protocol.Ping{ID: id},
		&protocol.OpenSession{ID: id, Session: "s3"},
		&protocol.CloseSession{ID: id, Session: "s2"},
		&protocol.Exec{ID: id, Session: "s1", Source: "1"},
		&protocol.Wait{ID: id, Session: "s1", Cell: cellID},
		&protocol.Terminate{ID: id, Session: "s1", Cell: cellID},
		&protocol.Hello{ID: id, Versions: []uint32{1}},
	} {
		p.send(m)
		e := expect[*protocol.ErrorReply](p)
		assert.Equal(t, protocol.ErrCodeDuplicateID, e.Code, "%s: %s", m.Type(), e.Message)
		assert.Equal(t, id, e.ID, "the error carries the refused request's id")
		assert.Equal(t, m.Type(), e.FailedType, "failed_t names the refused request")
		assert.Contains(t, e.Message, "answers only this "+m.Type())
	}
	// None of them touched the exec, s2 or s3: the exec keeps its reply.
	p.send(&protocol.ToolResult{ID: call.ID, Value: json.RawMessage(`{}`)})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, id, res.ID)
	assert.Equal(t, []string{"done"}, texts(res.Items))
	expect[*protocol.CellClosed](p)
	p.send(&protocol.OpenSession{ID: p.id(), Session: "s2"})
	assert.Equal(t, protocol.ErrCodeSessionExists, expect[*protocol.ErrorReply](p).Code, "s2 was not closed")
	p.send(&protocol.Ping{ID: id})
	assert.Equal(t, id, expect[*protocol.Pong](p).ID, "once answered, the id is free again")
}

func TestCellIdsContinueWhenASessionIsOpenedAgainUnderItsID(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	id, first := p.exec(&protocol.Exec{Session: "s1", Source: `return 1`})
	p.result(id)
	expect[*protocol.CellClosed](p)
	p.send(&protocol.CloseSession{ID: p.id(), Session: "s1"})
	expect[*protocol.SessionClosed](p)
	p.openSession("s1")
	_, second := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Source: `await new Promise(() => setTimeout(() => {}, 60000))`})
	assert.Equal(t, "c1", first)
	assert.Equal(t, "c2", second, "the numbering goes on: never c1 again")
	p.send(&protocol.Wait{ID: p.id(), Session: "s1", Cell: first})
	assert.Equal(t, protocol.ErrCodeUnknownCell, expect[*protocol.ErrorReply](p).Code, "a late wait names no live cell")
	term := p.id()
	p.send(&protocol.Terminate{ID: term, Session: "s1", Cell: second})
	res, _ := p.result(term)
	assert.Equal(t, protocol.StatusTerminated, res.Status)
}

func TestOutputBytesIsALimitAndACutTextIsTruncatedWithTheNoteWhereTheCutIs(t *testing.T) {
	p := startHost(t, Config{})
	ok := p.handshake()
	assert.Equal(t, uint32(protocol.DefaultOutputBytes), ok.Limits.OutputBytes, "hello.ok reports output_bytes")
	lim := p.openWith("s1", protocol.Limits{OutputTokens: 1_000_000, OutputBytes: 10_000})
	require.Equal(t, uint32(10_000), lim.OutputBytes, "a session override tightens it")
	id, _ := p.exec(&protocol.Exec{Session: "s1", Source: `text("a".repeat(30000) + "z".repeat(30000)); return "end"`})
	res, _ := p.result(id)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.True(t, res.Truncated, "a text cut at output_bytes says truncated, whatever output_tokens allows")
	got := texts(res.Items)
	require.GreaterOrEqual(t, len(got), 4, "%q", got)
	assert.True(t, strings.HasPrefix(got[0], "aaa"), "the head comes first")
	var note int
	for i, s := range got {
		if strings.Contains(s, "tokens truncated") {
			note = i
		}
	}
	assert.Equal(t, 1, note, "the note stands where the cut is, between head and tail")
	assert.True(t, strings.HasSuffix(got[len(got)-2], "zzz"), "the tail follows the note")
	assert.Equal(t, "end", got[len(got)-1], "the return value is kept")
	size := 0
	for _, it := range res.Items {
		size += len(it.Text)
	}
	assert.LessOrEqual(t, size, 10_000, "the result carries at most output_bytes of output")

	id, _ = p.start(&protocol.Exec{Session: "s1", Limits: &protocol.Limits{OutputBytes: 100},
		Source: `try { image("data:image/png;base64," + "A".repeat(200)) } catch (e) { return e.name }`})
	res, _ = p.result(id)
	assert.Equal(t, []string{"RangeError"}, texts(res.Items), "an exec override tightens the image bound too")
}

func TestARequestWhoseIDCannotBeReadGetsAnErrorWithoutAnIDAndTheConnectionStays(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	// {t:"exec", id:"x"}
	rawFrame(t, p.in, []byte{0x82, 0xa1, 't', 0xa4, 'e', 'x', 'e', 'c', 0xa2, 'i', 'd', 0xa1, 'x'})
	e := expect[*protocol.ErrorReply](p)
	assert.Zero(t, e.ID, "a notice answers no request")
	assert.Equal(t, protocol.ErrCodeBadField, e.Code)
	assert.Equal(t, protocol.TypeExec, e.FailedType)
	// {t:"ping"}: no id at all.
	rawFrame(t, p.in, []byte{0x81, 0xa1, 't', 0xa4, 'p', 'i', 'n', 'g'})
	e = expect[*protocol.ErrorReply](p)
	assert.Zero(t, e.ID)
	assert.Equal(t, protocol.TypePing, e.FailedType)
	// {t:"later.event"}: an unknown type without an id is an event of a
	// later version, ignored; the ping after it is answered next.
	rawFrame(t, p.in, []byte{0x81, 0xa1, 't', 0xab, 'l', 'a', 't', 'e', 'r', '.', 'e', 'v', 'e', 'n', 't'})
	p.send(&protocol.Ping{ID: 7})
	assert.Equal(t, uint64(7), expect[*protocol.Pong](p).ID)
}

func TestAReplyTooLargeToSendIsAnErrorNamingTheRequestType(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.srv.out.SetMaxFrame(400)
	p.srv.send(&protocol.SessionOpened{ID: 77, Session: strings.Repeat("s", protocol.MaxIDLen), Limits: protocol.DefaultLimits})
	e := expect[*protocol.ErrorReply](p)
	assert.Equal(t, uint64(77), e.ID)
	assert.Equal(t, protocol.ErrCodeTooLarge, e.Code)
	assert.Equal(t, protocol.TypeOpenSession, e.FailedType, "failed_t is the request's type, not the reply's")
	assert.Contains(t, e.Message, "could not send its session.opened")
}

func TestAFirstFrameOverTheCapGetsTooLargeWithoutAnIDAndTheHostCloses(t *testing.T) {
	p := startHost(t, Config{})
	_, err := p.in.Write([]byte{0x00, 0x89, 0x54, 0x40}) // 9 000 000 bytes
	require.NoError(t, err)
	e := expect[*protocol.ErrorReply](p)
	assert.Equal(t, protocol.ErrCodeTooLarge, e.Code)
	assert.Zero(t, e.ID)
	assert.Equal(t, "frame of 9000000 bytes exceeds the 8388608-byte cap", e.Message)
	_, ok := <-p.frames
	assert.False(t, ok, "the host closes its output (it exits with status 2)")
	err = <-p.done
	assert.True(t, protocol.IsFatal(err), "%v", err)
	p.done <- err
}

func TestAFeatureUsedWithoutItsCapabilityIsBadFieldAskingForItInHello(t *testing.T) {
	p := startHost(t, Config{}) // offers typescript and store; handshake asks for neither
	p.handshake()
	p.send(&protocol.OpenSession{ID: p.id(), Session: "s1", Store: []protocol.StoreEntry{{Key: "k", Value: json.RawMessage(`1`)}}})
	e := expect[*protocol.ErrorReply](p)
	assert.Equal(t, protocol.ErrCodeBadField, e.Code)
	assert.Contains(t, e.Message, `capability "store"`)
	assert.Contains(t, e.Message, "ask for it in hello")
	assert.NotContains(t, e.Message, "does not offer", "the host offers it: the parent did not ask")
	p.openSession("s1")
	p.send(&protocol.Exec{ID: p.id(), Session: "s1", Source: "1", Language: protocol.LangTS})
	e = expect[*protocol.ErrorReply](p)
	assert.Equal(t, protocol.ErrCodeBadField, e.Code)
	assert.Contains(t, e.Message, `capability "typescript"`)
	assert.Contains(t, e.Message, "ask for it in hello")

	q := startHost(t, Config{Capabilities: []string{protocol.CapStreamOutput}})
	q.send(&protocol.Hello{ID: q.id(), Versions: []uint32{1}, Capabilities: []string{protocol.CapStore}})
	expect[*protocol.HelloOK](q)
	q.send(&protocol.OpenSession{ID: q.id(), Session: "s1", Store: []protocol.StoreEntry{{Key: "k", Value: json.RawMessage(`1`)}}})
	assert.Contains(t, expect[*protocol.ErrorReply](q).Message, "this host does not offer it")
}

func TestWithoutTheStoreCapabilityTheStoreWorksInTheHostAndIsNotReported(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	id, _ := p.exec(&protocol.Exec{Session: "s1", Source: `store("k", {n: 1}); return load("k").n`})
	res, _ := p.result(id)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Empty(t, res.Store, "no store field without the capability")
	id, _ = p.start(&protocol.Exec{Session: "s1", Source: `return load("k")`})
	res, _ = p.result(id)
	assert.Equal(t, []string{`{"n":1}`}, texts(res.Items), "a later cell of the session loads it")
}

func TestStoreOfUndefinedDeletesTheKeyAndTheResultCarriesItWithoutAValue(t *testing.T) {
	p := startHost(t, Config{})
	p.handshakeStore()
	p.openSession("s1")
	id, _ := p.exec(&protocol.Exec{Session: "s1", Source: `store("a", 1); store("b", 2)`})
	res, _ := p.result(id)
	require.Len(t, res.Store, 2)
	id, _ = p.start(&protocol.Exec{Session: "s1", Source: `store("a", undefined); store("c", 3); store("c"); return [load("a"), load("c"), load("b")]`})
	res, _ = p.result(id)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`[null,null,2]`}, texts(res.Items), "load of a deleted key is undefined at once")
	assert.Equal(t, []protocol.StoreEntry{{Key: "a"}}, res.Store,
		"a deleted key the session held travels without a value; c, stored and deleted in the cell, leaves nothing")
	id, _ = p.start(&protocol.Exec{Session: "s1", Source: `return [load("a") === undefined, load("b")]`})
	res, _ = p.result(id)
	assert.Equal(t, []string{`[true,2]`}, texts(res.Items), "the deletion was committed")
}

func TestAMalformedToolResultRejectsTheCallWithInternalAndThePartyGetsNothing(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	id, _ := p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `try { await tools.echo({}) } catch (e) { return [e.name, e.code, e.tool, e.message] }`})
	call := expect[*protocol.ToolCallRequest](p)
	// {t:"tool.result", id:<call>, value:"not json"}
	body := []byte{0x83, 0xa1, 't', 0xab}
	body = append(body, "tool.result"...)
	body = append(body, 0xa2, 'i', 'd', byte(call.ID), 0xa5)
	body = append(body, "value"...)
	body = append(body, 0xc4, 8)
	body = append(body, "not json"...)
	rawFrame(t, p.in, body)
	res := expect[*protocol.CellResult](p) // no error frame before it
	assert.Equal(t, id, res.ID)
	var got []string
	require.NoError(t, json.Unmarshal([]byte(res.Items[0].Text), &got))
	assert.Equal(t, []string{"ToolError", "internal", "echo"}, got[:3])
	assert.Contains(t, got[3], "the parent sent a malformed tool.result")
}

func TestToolErrorToolIsTheCalledToolNotWhatTheParentSays(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	id, _ := p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `try { await tools.echo({}) } catch (e) { return [e.code, e.tool, e.message] }`})
	call := expect[*protocol.ToolCallRequest](p)
	p.send(&protocol.ToolResult{ID: call.ID, Error: &protocol.ToolError{Code: protocol.CodeDenied, Message: "no", Tool: "other"}})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, id, res.ID)
	assert.Equal(t, []string{`["denied","echo","no"]`}, texts(res.Items))
}

func TestAToolCallOverTheFrameCapRejectsWithLimitExceededAndIsNotSent(t *testing.T) {
	p := startHost(t, Config{})
	p.send(&protocol.Hello{ID: p.id(), Versions: []uint32{1}, MaxFrame: protocol.MinMaxFrame})
	expect[*protocol.HelloOK](p)
	p.openSession("s1")
	id, _ := p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `try { await tools.echo({s: "x".repeat(100000)}) } catch (e) { return [e.code, e.message] }`})
	res := expect[*protocol.CellResult](p) // no tool.call before it
	assert.Equal(t, id, res.ID)
	var got []string
	require.NoError(t, json.Unmarshal([]byte(res.Items[0].Text), &got))
	assert.Equal(t, "limit_exceeded", got[0])
	assert.Contains(t, got[1], "the input of echo is 100008 bytes, too large for one tool.call: a frame may be at most 65536 bytes (frame_bytes)")
}

func TestTwoPendingWaitsAreBothAnsweredTheOldestWithTheOutput(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({}); text("x"); await tools.echo({}); return "end"`})
	first := expect[*protocol.ToolCallRequest](p)
	p.send(&protocol.Cancel{Target: execID})
	assert.Equal(t, protocol.StatusYielded, expect[*protocol.CellResult](p).Status)
	a, b := p.id(), p.id()
	p.send(&protocol.Wait{ID: a, Session: "s1", Cell: cellID, YieldMS: 60_000})
	p.send(&protocol.Wait{ID: b, Session: "s1", Cell: cellID, YieldMS: 60_000})
	p.send(&protocol.Ping{ID: p.id()})
	expect[*protocol.Pong](p) // both waits are pending
	p.send(&protocol.ToolResult{ID: first.ID, Value: json.RawMessage(`{}`)})
	var results []*protocol.CellResult
	var second *protocol.ToolCallRequest
	for len(results) < 2 || second == nil {
		switch m := p.next().(type) {
		case *protocol.CellResult:
			results = append(results, m)
		case *protocol.ToolCallRequest:
			second = m
		}
	}
	require.Equal(t, []uint64{a, b}, []uint64{results[0].ID, results[1].ID}, "the oldest wait is answered first")
	assert.Equal(t, []string{"x"}, texts(results[0].Items), "the oldest gets the output")
	assert.Empty(t, results[1].Items, "the others an empty result")
	for _, r := range results {
		assert.Equal(t, protocol.StatusYielded, r.Status)
	}

	c, d := p.id(), p.id()
	p.send(&protocol.Wait{ID: c, Session: "s1", Cell: cellID, YieldMS: 60_000})
	p.send(&protocol.Wait{ID: d, Session: "s1", Cell: cellID, YieldMS: 60_000})
	p.send(&protocol.Ping{ID: p.id()})
	expect[*protocol.Pong](p)
	p.send(&protocol.ToolResult{ID: second.ID, Value: json.RawMessage(`{}`)})
	rc, rd := expect[*protocol.CellResult](p), expect[*protocol.CellResult](p)
	assert.Equal(t, []uint64{c, d}, []uint64{rc.ID, rd.ID})
	assert.Equal(t, []string{"end"}, texts(rc.Items), "at the end too, the oldest gets the output")
	assert.Empty(t, rd.Items)
	assert.Equal(t, protocol.StatusCompleted, rd.Status, "every pending request gets the final status")
}

func TestNamespaceFunctionsIsTheDefaultAndIsEchoedAsSent(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	def := echoTool
	def.Namespace = "functions"
	id, _ := p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{def}, Source: `return (await tools.echo({v: 1})).v`})
	call := expect[*protocol.ToolCallRequest](p)
	assert.Equal(t, "functions", call.Namespace, "tool.call names the namespace exec.tools gave")
	assert.Equal(t, "echo", call.Name)
	p.send(&protocol.ToolResult{ID: call.ID, Value: call.Input})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, id, res.ID)
	assert.Equal(t, []string{"1"}, texts(res.Items), "bound as tools.echo, as for the default namespace")
}

func texts(items []protocol.Item) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Text)
	}
	return out
}
