package runtime

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

func textItem(s string) protocol.Item { return protocol.Item{Type: "text", Text: s} }

func TestTruncateItemsKeepsBothEnds(t *testing.T) {
	items := []protocol.Item{textItem(strings.Repeat("a", 400)), textItem(strings.Repeat("b", 1000)), textItem(strings.Repeat("c", 400))}
	out, cut := TruncateItems(items, 200) // 800 bytes: 256 for the note, 272 for each end
	assert.True(t, cut)
	require.Len(t, out, 3)
	assert.Equal(t, strings.Repeat("a", 272-ItemOverhead-len("text")), out[0].Text)
	assert.Contains(t, out[1].Text, "tokens truncated…")
	assert.Contains(t, out[1].Text, "the limit is 200")
	assert.Equal(t, strings.Repeat("c", 272-ItemOverhead-len("text")), out[2].Text)
}

func TestTruncateItemsUnderBudgetOrUnlimited(t *testing.T) {
	items := []protocol.Item{textItem("short"), {Type: "image", ImageURL: "data:image/png;base64," + strings.Repeat("A", 1000)}}
	out, cut := TruncateItems(items, 300)
	assert.Equal(t, items, out)
	assert.False(t, cut)
	big := []protocol.Item{textItem(strings.Repeat("x", 1000))}
	out, cut = TruncateItems(big, -1)
	assert.Equal(t, big, out)
	assert.False(t, cut)
}

func TestTruncateItemsNeverSplitsRunes(t *testing.T) {
	s := strings.Repeat("é€😀", 200)
	out, _ := TruncateItems([]protocol.Item{textItem(s)}, 140)
	require.Len(t, out, 3)
	for _, it := range out {
		assert.True(t, utf8.ValidString(it.Text), "%q", it.Text)
	}
	assert.LessOrEqual(t, len(out[0].Text)+len(out[2].Text), 560-noteReserve)
}

func TestCellOutputBudget(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "for (let i = 0; i < 1000; i++) text('line ' + i);", protocol.Limits{OutputTokens: 50})
	require.Equal(t, protocol.StatusCompleted, res.Status)
	assert.Equal(t, "line 0", res.Items[0].Text)
	assert.Equal(t, "line 999", res.Items[len(res.Items)-1].Text)
	var marker string
	for _, it := range res.Items {
		if strings.Contains(it.Text, "tokens truncated") {
			marker = it.Text
		}
	}
	assert.NotEmpty(t, marker)
}
