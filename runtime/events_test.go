package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// eventFuncs is Events made of optional functions, for tests.
type eventFuncs struct {
	NoEvents
	output   func(protocol.Item)
	notify   func(string)
	yield    func()
	toolCall func(*ToolCall)
	result   func(Result)
}

func (e *eventFuncs) Output(it protocol.Item) {
	if e.output != nil {
		e.output(it)
	}
}

func (e *eventFuncs) Notify(s string) {
	if e.notify != nil {
		e.notify(s)
	}
}

func (e *eventFuncs) Yield() {
	if e.yield != nil {
		e.yield()
	}
}

func (e *eventFuncs) ToolCall(c *ToolCall) {
	if e.toolCall != nil {
		e.toolCall(c)
	}
}

func (e *eventFuncs) Result(r Result) {
	if e.result != nil {
		e.result(r)
	}
}

func TestAToolCallIsSettledByItsFirstAnswerOnly(t *testing.T) {
	rt := newRuntime(t)
	results := 0
	ev := &eventFuncs{
		toolCall: func(c *ToolCall) {
			go func() {
				assert.True(t, c.Answer(json.RawMessage(`"first"`), nil))
				assert.False(t, c.Answer(json.RawMessage(`"second"`), nil), "a second answer settles nothing")
				assert.False(t, c.Answer(nil, errors.New("late")))
			}()
		},
		result: func(Result) { results++ },
	}
	res, err := rt.Run(context.Background(), CellRequest{Tools: testTools, Events: ev,
		Source: `return [await tools.echo({}), await tools.echo({})].join()`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "first,first", res.Items[len(res.Items)-1].Text)
	assert.Equal(t, 1, results, "Result is reported exactly once")
}

func TestAnAnswerAfterTheCellEndedIsDropped(t *testing.T) {
	rt := newRuntime(t)
	calls := make(chan *ToolCall, 1)
	res, err := rt.Run(context.Background(), CellRequest{Tools: testTools,
		Events: &eventFuncs{toolCall: func(c *ToolCall) { calls <- c }},
		Source: `tools.echo({}); return 'done'`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status)
	c := <-calls
	select {
	case <-c.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the call's context was not cancelled when the cell ended")
	}
	assert.True(t, c.Answer(json.RawMessage(`1`), nil), "the first answer is taken, and dropped")
}

func TestACellThatBindsToolsNeedsSomethingToAnswerThem(t *testing.T) {
	rt := newRuntime(t)
	_, err := rt.Start(CellRequest{Tools: testTools, Source: `return 1`})
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Contains(t, refused.Message, "no Events nor Caller")
}

func TestToolCallerFuncAnswersInProcess(t *testing.T) {
	rt := newRuntime(t)
	res, err := rt.Run(context.Background(), CellRequest{Tools: testTools,
		Caller: ToolCallerFunc(func(_ context.Context, c protocol.ToolCall) (json.RawMessage, error) { return c.Input, nil }),
		Source: `return (await tools.echo({x: 2})).x`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "2", res.Items[len(res.Items)-1].Text)
}
