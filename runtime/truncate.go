package runtime

import (
	"fmt"
	"unicode/utf8"

	"github.com/codemode-host/codemode-host/protocol"
)

// bytesPerToken is the estimate used for output budgets.
const bytesPerToken = 4

// TruncateItems cuts text out of the middle of items so their text fits in
// maxTokens (estimated at 4 bytes a token), keeping the beginning and the
// end, and puts one text item where the cut was that says how much went.
// Items wholly inside the cut are dropped; images count as no tokens.
// maxTokens <= 0 means no limit. cut reports whether anything was cut.
// Safe from any goroutine.
func TruncateItems(items []protocol.Item, maxTokens int) (out []protocol.Item, cut bool) {
	if maxTokens <= 0 {
		return items, false
	}
	total := 0
	for _, it := range items {
		total += len(it.Text)
	}
	budget := maxTokens * bytesPerToken
	if total <= budget {
		return items, false
	}
	head, tail := budget/2, budget-budget/2

	// Walk forward for the head: whole items, then a prefix of item i.
	var front []protocol.Item
	i := 0
	for ; i < len(items) && head > 0; i++ {
		if len(items[i].Text) > head {
			it := items[i]
			it.Text = cutRunes(it.Text, head, true)
			front = append(front, it)
			break
		}
		front = append(front, items[i])
		head -= len(items[i].Text)
	}
	// Walk back for the tail, down to item i at most: a suffix of the item
	// whose prefix the head took never overlaps it, as head+tail < total.
	var back []protocol.Item
	for j := len(items) - 1; j >= i && tail > 0; j-- {
		it := items[j]
		if j == i && i < len(front) && len(front[i].Text) > 0 || len(it.Text) > tail {
			it.Text = cutRunes(it.Text, min(tail, len(it.Text)), false)
			back = append(back, it)
			break
		}
		back = append(back, it)
		tail -= len(it.Text)
	}

	kept := 0
	for _, it := range front {
		kept += len(it.Text)
	}
	for _, it := range back {
		kept += len(it.Text)
	}
	cutTokens := (total - kept + bytesPerToken - 1) / bytesPerToken
	marker := protocol.Item{Type: protocol.ItemText, Text: fmt.Sprintf(
		"…%d tokens truncated… (the output was about %d tokens; the limit is %d: print less, or summarise before printing)",
		cutTokens, (total+bytesPerToken-1)/bytesPerToken, maxTokens)}

	out = make([]protocol.Item, 0, len(front)+len(back)+1)
	out = append(out, front...)
	out = append(out, marker)
	for k := len(back) - 1; k >= 0; k-- {
		out = append(out, back[k])
	}
	return out, true
}

// cutRunes keeps at most n bytes of s, from its start (prefix) or its end,
// without splitting a UTF-8 sequence.
func cutRunes(s string, n int, prefix bool) string {
	if prefix {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n]
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
