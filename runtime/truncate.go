package runtime

import (
	"fmt"
	"unicode/utf8"

	"github.com/codemode-host/codemode-host/protocol"
)

// bytesPerToken is the estimate used for output budgets.
const bytesPerToken = 4

// ItemOverhead is what each output item costs in a Budget beyond the bytes
// of its strings: about what its map costs on the wire, so a flood of tiny
// items (console.log(1) in a loop) fills the budget as their frame fills.
const ItemOverhead = 32

// MaxResultItems is the most output items one result carries, whatever its
// budget: an item is at most 11 msgpack values, so this many use about a
// third of the decoder's protocol.MaxItems and leave the rest to the
// result's store entries and envelope.
const MaxResultItems = protocol.MaxItems / 32

// noteReserve is the room a Budget keeps for the truncation note.
const noteReserve = 256

// Budget bounds the output of one result: the items, and the error's
// strings, which count against it too. The zero value means no bound.
type Budget struct {
	// Bytes is the most the output may cost: the bytes of every item's
	// strings plus ItemOverhead for each, and the bytes of the error's
	// name, message and stack. <= 0 means no bound.
	Bytes int
	// Items is the most items; <= 0 means MaxResultItems.
	Items int
}

// TokenBudget is the Budget of maxTokens output tokens (estimated at 4
// bytes a token; <= 0 means no token limit) within at most maxBytes
// (<= 0: no byte limit) and MaxResultItems items.
func TokenBudget(maxTokens, maxBytes int) Budget {
	b := Budget{Bytes: maxBytes, Items: MaxResultItems}
	if maxTokens > 0 && (b.Bytes <= 0 || maxTokens*bytesPerToken < b.Bytes) {
		b.Bytes = maxTokens * bytesPerToken
	}
	return b
}

func (b Budget) items() int {
	if b.Items <= 0 {
		return MaxResultItems
	}
	return min(b.Items, MaxResultItems)
}

func (b Budget) bytes() int {
	if b.Bytes <= 0 {
		return int(^uint(0) >> 2)
	}
	return max(b.Bytes, 2*noteReserve)
}

// itemCost is what it costs against a Budget.
func itemCost(it protocol.Item) int {
	return len(it.Type) + len(it.Text) + len(it.Level) + len(it.ImageURL) + len(it.Detail) + ItemOverhead
}

// TruncateItems fits items into maxTokens (estimated at 4 bytes a token,
// each item costing ItemOverhead more) and MaxResultItems items: it keeps
// the beginning and the end, cutting text in the middle, and puts one text
// item where the cut is that says how much went. Items wholly inside the
// cut are dropped (an image is never cut: it is kept whole or dropped).
// maxTokens <= 0 means no token limit. cut reports whether anything was
// cut. Safe from any goroutine.
func TruncateItems(items []protocol.Item, maxTokens int) (out []protocol.Item, cut bool) {
	var o Output
	for _, it := range items {
		o.Add(it)
	}
	out, _, cut = o.Take(nil, nil, TokenBudget(maxTokens, 0))
	return out, cut
}

// Output collects the items a cell makes between two results and fits
// them into a Budget when a result takes them, which is the one rule for
// every result's output: the beginning and the end are kept, the middle
// is cut, and a note stands where the cut is. While collecting it keeps
// at most Limit's first half and a rolling last half, so its memory is
// bounded however much a script prints. The zero value collects without
// a bound. Not safe for concurrent use.
type Output struct {
	// Limit bounds what is kept between two Takes; a Take's own budget
	// should be no larger.
	Limit Budget

	head     []protocol.Item
	headCost int
	headFull bool // later items go to the tail
	tail     []protocol.Item
	tailAt   int // tail[:tailAt] were dropped
	tailCost int
	cut      bool // items were dropped between head and tail, or cut
	total    int  // cost of everything added since the last Take
}

// Len returns how many items were added since the last Take and are
// still kept.
func (o *Output) Len() int { return len(o.head) + len(o.tail) - o.tailAt }

// Empty reports whether nothing was added since the last Take.
func (o *Output) Empty() bool { return o.total == 0 }

// Add records an item.
func (o *Output) Add(it protocol.Item) {
	cost := itemCost(it)
	o.total += cost
	halfB, halfN := o.Limit.bytes()/2, o.Limit.items()/2
	if !o.headFull {
		if o.headCost+cost <= halfB && len(o.head) < halfN {
			o.head = append(o.head, it)
			o.headCost += cost
			return
		}
		o.headFull = true
	}
	o.tail = append(o.tail, it)
	o.tailCost += cost
	for o.tailCost > halfB || len(o.tail)-o.tailAt > halfN {
		first := &o.tail[o.tailAt]
		if !o.cut {
			// The first cut: the beginning of the item that overflowed
			// the head fills what is left of the head's half.
			o.cut = true
			if room := halfB - o.headCost - (itemCost(*first) - len(first.Text)); first.ImageURL == "" && room > 0 && len(o.head) < halfN {
				part := *first
				part.Text = cutRunes(first.Text, room, true)
				o.head = append(o.head, part)
				o.headCost += itemCost(part)
				o.tailCost -= len(part.Text)
				first.Text = first.Text[len(part.Text):]
				continue
			}
		}
		if len(o.tail)-o.tailAt == 1 && first.ImageURL == "" {
			// One text longer than the half: keep its end.
			keep := max(0, halfB-(itemCost(*first)-len(first.Text)))
			cutText := cutRunes(first.Text, keep, false)
			o.tailCost -= len(first.Text) - len(cutText)
			first.Text = cutText
			break
		}
		o.tailCost -= itemCost(*first)
		*first = protocol.Item{}
		o.tailAt++
	}
	if o.tailAt > 64 && o.tailAt > len(o.tail)/2 {
		o.tail = append(o.tail[:0], o.tail[o.tailAt:]...)
		o.tailAt = 0
	}
}

// Take returns the items added since the last Take followed by last (the
// return value, say), and e, fitted into b: e's name, message and stack
// are cut in the middle to at most a quarter of b between them, and the
// items get the rest. It reports whether anything was cut or dropped, and
// starts collecting anew.
func (o *Output) Take(last []protocol.Item, e *protocol.ErrorInfo, b Budget) ([]protocol.Item, *protocol.ErrorInfo, bool) {
	head, tail, collectedCut, total := o.head, append(o.tail[o.tailAt:], last...), o.cut, o.total
	for _, it := range last {
		total += itemCost(it)
	}
	limit := o.Limit
	*o = Output{Limit: limit}
	e, errCut := fitError(e, b)
	if e != nil {
		b.Bytes = b.bytes() - len(e.Name) - len(e.Message) - len(e.Stack)
	}
	items, cut := fit(head, tail, collectedCut, total, b)
	return items, e, cut || errCut
}

// fitError cuts e's strings to fit a quarter of b.
func fitError(e *protocol.ErrorInfo, b Budget) (*protocol.ErrorInfo, bool) {
	if e == nil {
		return nil, false
	}
	room := b.bytes() / 4
	name := cutMiddle(e.Name, min(200, room/4))
	msg := cutMiddle(e.Message, (room-len(name))/2)
	stack := cutMiddle(e.Stack, room-len(name)-len(msg))
	if name == e.Name && msg == e.Message && stack == e.Stack {
		return e, false
	}
	out := *e
	out.Name, out.Message, out.Stack = name, msg, stack
	return &out, true
}

// cutMiddle keeps at most n bytes of s: its beginning and its end, with a
// note of how much went between them.
func cutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	note := fmt.Sprintf("…%d bytes cut…", len(s)-n)
	keep := max(0, n-len(note))
	return cutRunes(s, keep/2, true) + note + cutRunes(s, keep-keep/2, false)
}

// fit keeps the beginning of head and the end of tail within b (gapped:
// output was dropped between them already; total is what all the output
// cost) and puts the note where the cut is.
func fit(head, tail []protocol.Item, gapped bool, total int, b Budget) ([]protocol.Item, bool) {
	maxB, maxN := b.bytes(), b.items()
	cost := 0
	for _, it := range head {
		cost += itemCost(it)
	}
	for _, it := range tail {
		cost += itemCost(it)
	}
	if !gapped && cost <= maxB && len(head)+len(tail) <= maxN {
		return append(head, tail...), false
	}
	maxB -= noteReserve
	maxN--
	all := append(head[:len(head):len(head)], tail...)
	limitP := len(all)
	if gapped {
		limitP = len(head)
	}
	// The beginning: whole items, then a prefix of item i.
	var front []protocol.Item
	used, i, taken := 0, 0, 0 // taken: bytes of all[i].Text the prefix took
	for ; i < limitP && len(front) < maxN/2; i++ {
		c := itemCost(all[i])
		if used+c <= maxB/2 {
			front = append(front, all[i])
			used += c
			continue
		}
		if room := maxB/2 - used - (c - len(all[i].Text)); all[i].ImageURL == "" && room > 0 {
			it := all[i]
			it.Text = cutRunes(it.Text, room, true)
			front = append(front, it)
			used += itemCost(it)
			taken = len(it.Text)
		}
		break
	}
	// The end: whole items back to item i at most (after what the prefix
	// took of it), then a suffix of one more.
	var back []protocol.Item
	stop := i // without a gap the end may reach the item the beginning cut
	if gapped {
		stop = limitP
	}
	for j := len(all) - 1; j >= stop && len(front)+len(back) < maxN; j-- {
		it := all[j]
		avail := it.Text
		if j == i && taken > 0 {
			avail = it.Text[taken:]
		}
		c := itemCost(it) - len(it.Text) + len(avail)
		if used+c <= maxB && len(avail) == len(it.Text) {
			back = append(back, it)
			used += c
			continue
		}
		if room := maxB - used - (c - len(avail)); it.ImageURL == "" && room > 0 {
			it.Text = cutRunes(avail, min(room, len(avail)), false)
			back = append(back, it)
			used += itemCost(it)
		}
		break
	}
	kept := used
	cutTokens := (max(0, total-kept) + bytesPerToken - 1) / bytesPerToken
	note := protocol.Item{Type: protocol.ItemText, Text: fmt.Sprintf(
		"…%d tokens truncated… (the output was about %d tokens; the limit is %d: print less, or summarise before printing)",
		cutTokens, (total+bytesPerToken-1)/bytesPerToken, b.bytes()/bytesPerToken)}
	out := make([]protocol.Item, 0, len(front)+len(back)+1)
	out = append(out, front...)
	out = append(out, note)
	for k := len(back) - 1; k >= 0; k-- {
		out = append(out, back[k])
	}
	return out, true
}

// cutRunes keeps at most n bytes of s, from its start (prefix) or its end,
// without splitting a UTF-8 sequence.
func cutRunes(s string, n int, prefix bool) string {
	if n >= len(s) {
		return s
	}
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
