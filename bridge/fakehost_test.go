package bridge

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/codemode-host/codemode-host/launch"
	"github.com/codemode-host/codemode-host/protocol"
)

// A fake host for the bridge's fault tests: the test binary, started by
// the bridge through go-plugin like the real host (frames on fds 3 and
// 4), misbehaving as each cell's source asks. Sources are commands:
//
//	ok TEXT       completes with TEXT
//	store K V     completes, committing K = V (JSON text)
//	dump          completes with the session's store as JSON
//	silent        starts, then answers nothing about the cell, terminate included
//	badutf8       its cell.result has invalid UTF-8 in a str
//	badcall       sends a tool.call with invalid UTF-8 in a str, then
//	              completes with the error message the parent answered
//	huge          sends a length prefix over the frame cap
//	dup           exec.started twice, cell.result twice, and replies to
//	              ids never used
//	exit N        exits with status N mid-exec
//	yield K V     yields; a wait or a terminate then gets the final result
//	              (completed) committing K = V
//	late K V      runs until terminated; the terminate's reply commits
//	              K = V, the exec's reply (terminated) carries nothing
//
// A restarted fake host (gen > 1) refuses session.open for a session
// whose id starts with "refuse".

// fakeHostEnv makes the test binary serve as the fake host.
const fakeHostEnv = "BRIDGE_FAKE_HOST"

// badUTF8Placeholder is where a fake host's frame gets invalid UTF-8: a placeholder
// encoded as valid text, then patched in the body.
const badUTF8Placeholder = "ZZZZ"

type fakeHost struct {
	fr        *protocol.FrameReader
	fw        *protocol.FrameWriter
	out       io.Writer
	restarted bool
	prefix    string
	nextCell  int
	nextCall  uint64
	stores    map[string]map[string]json.RawMessage
	cells     map[string]*fakeCell // by cell id
	calls     map[uint64]*fakeCell // tool calls awaiting the parent
}

type fakeCell struct {
	session, id string
	execID      uint64
	cmd         []string
}

func runFakeHost() int {
	go func() {
		plugin.Serve(&plugin.ServeConfig{HandshakeConfig: launch.Handshake, VersionedPlugins: launch.PluginSets("fake"),
			Logger: hclog.NewNullLogger()})
		os.Exit(0) // go-plugin's Kill asked us to quit
	}()
	in, out := os.NewFile(3, "frames-in"), os.NewFile(4, "frames-out")
	prefix := os.Getenv(launch.CellPrefixEnv)
	h := &fakeHost{fr: protocol.NewFrameReader(in, 0), fw: protocol.NewFrameWriter(out, 0), out: out,
		restarted: prefix != "", prefix: prefix, stores: map[string]map[string]json.RawMessage{},
		cells: map[string]*fakeCell{}, calls: map[uint64]*fakeCell{}}
	h.serve()
	out.Close()
	time.Sleep(time.Hour) // go-plugin's Kill ends us
	return 0
}

func (h *fakeHost) send(m protocol.Message) {
	if err := h.fw.WriteMessage(m); err != nil {
		panic(err)
	}
	_ = h.fw.Flush()
}

// sendBadUTF8 sends m with its first badUTF8Placeholder made invalid UTF-8.
func (h *fakeHost) sendBadUTF8(m protocol.Message) {
	body, err := protocol.Encode(m)
	if err != nil {
		panic(err)
	}
	body = bytes.Replace(body, []byte(badUTF8Placeholder), []byte("\xff\xfeZZ"), 1)
	if err := h.fw.WriteFrame(body); err != nil {
		panic(err)
	}
	_ = h.fw.Flush()
}

func (h *fakeHost) serve() {
	for {
		m, err := h.fr.ReadMessage()
		if err != nil {
			if protocol.IsFatal(err) || errors.Is(err, io.EOF) {
				return
			}
			continue
		}
		switch m := m.(type) {
		case *protocol.Hello:
			h.send(&protocol.HelloOK{ID: m.ID, Version: protocol.Version1, Capabilities: m.Capabilities,
				Limits: protocol.Limits{FrameBytes: protocol.DefaultMaxFrame}.WithDefaults()})
		case *protocol.Ping:
			h.send(&protocol.Pong{ID: m.ID})
		case *protocol.OpenSession:
			if h.restarted && strings.HasPrefix(m.Session, "refuse") {
				h.send(&protocol.ErrorReply{ID: m.ID, Code: protocol.ErrCodeLimitExceeded, FailedType: m.Type(),
					Message: "the fake host refuses to restore this session"})
				continue
			}
			if h.restarted && strings.HasPrefix(m.Session, "mute") {
				continue // never answers the restore
			}
			st := map[string]json.RawMessage{}
			for _, e := range m.Store {
				st[e.Key] = e.Value
			}
			h.stores[m.Session] = st
			h.send(&protocol.SessionOpened{ID: m.ID, Session: m.Session, Limits: protocol.Limits{}.WithDefaults()})
		case *protocol.CloseSession:
			delete(h.stores, m.Session)
			h.send(&protocol.SessionClosed{ID: m.ID, Session: m.Session})
		case *protocol.Exec:
			h.exec(m)
		case *protocol.Wait:
			h.finish(m.ID, m.Cell, false)
		case *protocol.Terminate:
			h.finish(m.ID, m.Cell, true)
		case *protocol.ToolResult:
			c := h.calls[m.ID]
			delete(h.calls, m.ID)
			text := "value " + string(m.Value)
			if m.Error != nil {
				text = "error " + string(m.Error.Code) + ": " + m.Error.Message
			}
			h.done(c, c.execID, protocol.StatusCompleted, text, nil)
		case *protocol.ErrorReply:
			if c := h.calls[m.ID]; c != nil {
				delete(h.calls, m.ID)
				h.done(c, c.execID, protocol.StatusCompleted, "error reply "+string(m.Code)+": "+m.Message, nil)
			}
		case *protocol.Shutdown:
			return
		}
	}
}

func (h *fakeHost) exec(m *protocol.Exec) {
	h.nextCell++
	c := &fakeCell{session: m.Session, id: fmt.Sprintf("%sc%d", h.prefix, h.nextCell), execID: m.ID, cmd: strings.Fields(m.Source)}
	h.cells[c.id] = c
	started := &protocol.ExecStarted{ID: m.ID, Session: m.Session, Cell: c.id}
	h.send(started)
	switch c.cmd[0] {
	case "ok":
		h.done(c, m.ID, protocol.StatusCompleted, strings.Join(c.cmd[1:], " "), nil)
	case "store":
		h.done(c, m.ID, protocol.StatusCompleted, "stored", h.commit(c))
	case "dump":
		st := h.stores[c.session]
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(st)) {
			fmt.Fprintf(&b, "%s=%s;", k, st[k])
		}
		h.done(c, m.ID, protocol.StatusCompleted, b.String(), nil)
	case "badutf8":
		h.sendBadUTF8(&protocol.CellResult{ID: m.ID, Session: c.session, Cell: c.id, Status: protocol.StatusCompleted,
			Items: []protocol.Item{{Type: protocol.ItemText, Text: "text " + badUTF8Placeholder}}})
	case "badcall":
		h.nextCall++
		h.calls[h.nextCall] = c
		h.sendBadUTF8(&protocol.ToolCallRequest{ID: h.nextCall, ToolCall: protocol.ToolCall{SessionID: c.session,
			CellID: c.id, CallID: 1, Name: "echo" + badUTF8Placeholder, Kind: protocol.KindFunction, Input: json.RawMessage(`{}`)}})
	case "huge":
		var hdr [4]byte
		binary.BigEndian.PutUint32(hdr[:], protocol.DefaultMaxFrame+1)
		_, _ = h.out.Write(hdr[:])
	case "dup":
		h.send(started)
		res := &protocol.CellResult{ID: m.ID, Session: c.session, Cell: c.id, Status: protocol.StatusCompleted,
			Items: []protocol.Item{{Type: protocol.ItemText, Text: "first"}}}
		h.send(res)
		dup := *res
		dup.Items = []protocol.Item{{Type: protocol.ItemText, Text: "second"}}
		h.send(&dup)
		h.send(&protocol.Pong{ID: 999_999})
		h.send(&protocol.CellResult{ID: 999_998, Session: c.session, Cell: c.id, Status: protocol.StatusCompleted})
		h.send(&protocol.ExecStarted{ID: 999_997, Session: c.session, Cell: c.id})
		h.send(&protocol.CellClosed{Session: c.session, Cell: c.id})
	case "exit":
		code := 3
		fmt.Sscan(c.cmd[1], &code)
		os.Exit(code)
	case "yield":
		h.send(&protocol.CellResult{ID: m.ID, Session: c.session, Cell: c.id, Status: protocol.StatusYielded})
	}
}

// finish answers a wait or terminate of cell.
func (h *fakeHost) finish(id uint64, cell string, terminate bool) {
	c := h.cells[cell]
	switch {
	case c == nil:
		h.send(&protocol.ErrorReply{ID: id, Code: protocol.ErrCodeUnknownCell, Message: "no such cell"})
	case c.cmd[0] == "silent":
	case c.cmd[0] == "yield":
		h.done(c, id, protocol.StatusCompleted, "done", h.commit(c))
	case c.cmd[0] == "late" && terminate:
		writes := h.commit(c)
		h.send(&protocol.CellResult{ID: id, Session: c.session, Cell: c.id, Status: protocol.StatusCompleted, Store: writes})
		h.done(c, c.execID, protocol.StatusTerminated, "", nil)
	}
}

// commit applies a cell's "K V" to its session's store.
func (h *fakeHost) commit(c *fakeCell) []protocol.StoreEntry {
	e := protocol.StoreEntry{Key: c.cmd[1], Value: json.RawMessage(c.cmd[2])}
	h.stores[c.session][e.Key] = e.Value
	return []protocol.StoreEntry{e}
}

// done sends a cell's final result (answering request id) and cell.closed.
func (h *fakeHost) done(c *fakeCell, id uint64, status protocol.Status, text string, store []protocol.StoreEntry) {
	res := &protocol.CellResult{ID: id, Session: c.session, Cell: c.id, Status: status, Store: store}
	if text != "" {
		res.Items = []protocol.Item{{Type: protocol.ItemText, Text: text}}
	}
	h.send(res)
	h.send(&protocol.CellClosed{Session: c.session, Cell: c.id})
	delete(h.cells, c.id)
}

// startFakeClient starts a Client on the fake host, with cfg's
// TerminateGrace, and checks after Close that no goroutine is left.
func startFakeClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	cfg.HostPath = os.Args[0]
	cfg.Env = append(cfg.Env, fakeHostEnv+"=1")
	if cfg.Executor == nil {
		cfg.Executor = echo
	}
	c, err := Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close(0) })
	return c
}

// within runs f and fails the test unless it returns within d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
	}
}
