package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// notes counts the truncation notes among items.
func notes(items []protocol.Item) int {
	n := 0
	for _, it := range items {
		if strings.Contains(it.Text, "tokens truncated…") {
			n++
		}
	}
	return n
}

func cost(items []protocol.Item) int {
	n := 0
	for _, it := range items {
		n += itemCost(it)
	}
	return n
}

// decodes reports whether res's output, as a cell.result, encodes and
// decodes.
func decodes(t *testing.T, res Result) {
	t.Helper()
	frame, err := protocol.Encode(&protocol.CellResult{ID: 1, Session: "s", Cell: "c", Status: res.Status,
		Items: res.Items, Truncated: res.Truncated, Error: res.Error, Stats: res.Stats})
	require.NoError(t, err)
	_, err = protocol.Decode(frame)
	require.NoError(t, err)
}

func TestOutputBudgetBoundsItemCountAndKeepsTheReturnValue(t *testing.T) {
	rt := newRuntime(t)
	for _, req := range []CellRequest{{}, {NoTokenBudget: true}, {Limits: protocol.Limits{OutputTokens: 1 << 30}}} {
		req.Source = `for (let i = 0; i < 38000; i++) console.log(i % 10); return 1`
		res := runReq(t, rt, req)
		require.Equal(t, protocol.StatusCompleted, res.Status)
		assert.True(t, res.Truncated)
		assert.LessOrEqual(t, len(res.Items), MaxResultItems)
		assert.Equal(t, "1", res.Items[len(res.Items)-1].Text, "the return value is last")
		assert.Equal(t, "0", res.Items[0].Text)
		assert.Equal(t, 1, notes(res.Items))
		decodes(t, res)
	}
}

func TestOutputBudgetCountsImagesByTheirBytes(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, `image('data:text/plain,' + 'A'.repeat(9e5)); text('after'); return 'done'`, protocol.Limits{OutputTokens: 1000})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.True(t, res.Truncated)
	assert.LessOrEqual(t, cost(res.Items), 4000)
	assert.Equal(t, "done", res.Items[len(res.Items)-1].Text)
	for _, it := range res.Items {
		assert.Empty(t, it.ImageURL, "an image over the budget is dropped whole")
	}
}

func TestOutputBudgetCutsTheErrorInTheMiddle(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, `console.log("before"); throw new Error("start" + "x".repeat(1e6) + "end")`, protocol.Limits{OutputTokens: 1000})
	require.Equal(t, protocol.StatusFailed, res.Status)
	require.NotNil(t, res.Error)
	assert.True(t, res.Truncated)
	assert.True(t, strings.HasPrefix(res.Error.Message, "start"), res.Error.Message[:20])
	assert.True(t, strings.HasSuffix(res.Error.Message, "end"))
	assert.Contains(t, res.Error.Message, "bytes cut…")
	assert.LessOrEqual(t, len(res.Error.Name)+len(res.Error.Message)+len(res.Error.Stack), 1000)
	assert.Equal(t, []string{"before"}, texts(res))
}

func TestOutputBudgetCutsAHugeReturnValueInItsMiddle(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, `return "<" + "x".repeat(5e6) + ">"`)
	require.Equal(t, protocol.StatusCompleted, res.Status)
	assert.True(t, res.Truncated)
	require.Len(t, res.Items, 3)
	assert.True(t, strings.HasPrefix(res.Items[0].Text, "<"))
	assert.Equal(t, 1, notes(res.Items[1:2]))
	assert.True(t, strings.HasSuffix(res.Items[2].Text, ">"))
	assert.LessOrEqual(t, cost(res.Items), int(protocol.DefaultLimits.OutputTokens)*bytesPerToken)
}

func TestOutputKeepsTheBeginningAndARollingEndWithinItsLimit(t *testing.T) {
	o := Output{Limit: Budget{Bytes: 4000}}
	for i := range 100000 {
		o.Add(textItem(strings.Repeat(string(rune('a'+i%26)), 50)))
	}
	assert.LessOrEqual(t, o.Len(), 4000/(50+ItemOverhead)+2, "what it keeps is bounded")
	out, _, cut := o.Take([]protocol.Item{textItem("ret")}, nil, Budget{Bytes: 4000})
	assert.True(t, cut)
	assert.Equal(t, strings.Repeat("a", 50), out[0].Text)
	assert.Equal(t, "ret", out[len(out)-1].Text)
	assert.Equal(t, strings.Repeat(string(rune('a'+99999%26)), 50), out[len(out)-2].Text)
	assert.Equal(t, 1, notes(out))
	assert.LessOrEqual(t, cost(out), 4000)
	assert.True(t, o.Empty(), "Take starts anew")
}

func TestOutputUnderBudgetIsUntouched(t *testing.T) {
	o := Output{Limit: Budget{Bytes: 4000}}
	o.Add(textItem("a"))
	o.Add(textItem("b"))
	out, e, cut := o.Take(nil, &protocol.ErrorInfo{Name: "Error", Message: "m"}, Budget{Bytes: 4000})
	assert.False(t, cut)
	assert.Equal(t, []protocol.Item{textItem("a"), textItem("b")}, out)
	assert.Equal(t, "m", e.Message)
}
