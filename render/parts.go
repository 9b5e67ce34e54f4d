package render

import (
	"fmt"
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
)

// part is one piece of a rendered result: text, or an image item.
type part struct {
	text  string
	image *protocol.Item
}

// parts lays a result out in order: the header, the items (adjacent text
// joined into one part), the error; text that follows text goes into the
// same part, one line each.
func parts(res *protocol.CellResult) []part {
	var out []part
	var b strings.Builder
	line := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	flush := func() {
		if b.Len() > 0 {
			out = append(out, part{text: b.String()})
			b.Reset()
		}
	}
	line(Header(res))
	for i := range res.Items {
		it := &res.Items[i]
		if it.Type == protocol.ItemImage {
			flush()
			out = append(out, part{image: it})
			continue
		}
		line(ItemText(it))
	}
	if res.Error != nil {
		line(errorText(res.Error))
	} else if len(res.Items) == 0 {
		line(NoOutput)
	}
	flush()
	return out
}

// ItemText is a text item as the model reads it and codemode-host run
// prints it: console levels other than log are prefixed ("[warn] ...").
func ItemText(it *protocol.Item) string {
	if it.Level != "" && it.Level != "log" {
		return "[" + it.Level + "] " + it.Text
	}
	return it.Text
}

// errorText is a failure: "Name: message (line L, column C)", then at most
// MaxStackFrames frames of the stack, indented.
func errorText(e *protocol.ErrorInfo) string {
	var b strings.Builder
	b.WriteString(e.Name)
	if e.Message != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Message)
	}
	switch {
	case e.Line > 0 && e.Column > 0:
		fmt.Fprintf(&b, " (line %d, column %d)", e.Line, e.Column)
	case e.Line > 0:
		fmt.Fprintf(&b, " (line %d)", e.Line)
	}
	frames := stackFrames(e.Stack)
	for i, f := range frames {
		if i == MaxStackFrames {
			fmt.Fprintf(&b, "\n    … %d more", len(frames)-i)
			break
		}
		b.WriteString("\n    ")
		b.WriteString(f)
	}
	return b.String()
}

// stackFrames are the "at …" lines of a V8 stack, trimmed; the first
// line, which repeats the name and message, is not one.
func stackFrames(stack string) []string {
	var frames []string
	for l := range strings.SplitSeq(stack, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "at ") {
			frames = append(frames, t)
		}
	}
	return frames
}

// hasImages reports whether the result carries an image item.
func hasImages(res *protocol.CellResult) bool {
	for i := range res.Items {
		if res.Items[i].Type == protocol.ItemImage {
			return true
		}
	}
	return false
}

// Text is the whole result as one string, for outputs that take only
// text: each image is a note naming its media type and size.
func Text(res *protocol.CellResult) string {
	return joinText(parts(res), func(n int, it *protocol.Item) string {
		return fmt.Sprintf("[image %d: %s, %s, detail %s]", n, MediaType(it.ImageURL), size(len(it.ImageURL)), detailOr(it.Detail, "auto"))
	})
}

// joinText joins the parts into one string, rendering the n-th image
// (from 1) with note.
func joinText(ps []part, note func(n int, it *protocol.Item) string) string {
	var b strings.Builder
	n := 0
	for _, p := range ps {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if p.image != nil {
			n++
			b.WriteString(note(n, p.image))
			continue
		}
		b.WriteString(p.text)
	}
	return b.String()
}

// detailOr is an image's detail, or def when the item has none.
func detailOr(detail, def string) string {
	if detail == "" {
		return def
	}
	return detail
}

// size renders a byte count for a person.
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
}
