package tsdecl

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// kind is the JSON type of a node.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is a decoded JSON value that keeps the key order of objects, so that
// properties render in the order the schema's author wrote them.
type node struct {
	kind    kind
	boolean bool
	// text is the string value, or the number's literal text.
	text  string
	items []*node  // array elements
	keys  []string // object keys, in document order (first occurrence)
	vals  []*node  // object values, parallel to keys
}

// maxDecodeDepth bounds nesting so a hostile schema cannot exhaust the stack.
const maxDecodeDepth = 512

var errTooDeep = errors.New("tsdecl: schema nested too deeply")

// parse decodes JSON text into a node. Duplicate object keys keep the last
// value at the position of the first, as encoding/json does for maps.
func parse(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("tsdecl: trailing data after schema")
	}
	return n, nil
}

func decodeNode(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxDecodeDepth {
		return nil, errTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: kindNull}, nil
	case bool:
		return &node{kind: kindBool, boolean: t}, nil
	case json.Number:
		return &node{kind: kindNumber, text: t.String()}, nil
	case string:
		return &node{kind: kindString, text: t}, nil
	case json.Delim:
		if t == '[' {
			n := &node{kind: kindArray}
			for dec.More() {
				item, err := decodeNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, item)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		n := &node{kind: kindObject}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			val, err := decodeNode(dec, depth+1)
			if err != nil {
				return nil, err
			}
			if i := n.index(key); i >= 0 {
				n.vals[i] = val
				continue
			}
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, val)
		}
		_, err := dec.Token() // '}'
		return n, err
	}
	return nil, errors.New("tsdecl: unexpected JSON token")
}

// index returns the position of key in an object node, or -1.
func (n *node) index(key string) int {
	if n == nil || n.kind != kindObject {
		return -1
	}
	for i, k := range n.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// get returns the value of key in an object node, or nil.
func (n *node) get(key string) *node {
	if i := n.index(key); i >= 0 {
		return n.vals[i]
	}
	return nil
}

// has reports whether an object node has key.
func (n *node) has(key string) bool { return n.index(key) >= 0 }

// str returns the string value of key, or "".
func (n *node) str(key string) string {
	if v := n.get(key); v != nil && v.kind == kindString {
		return v.text
	}
	return ""
}

// isTrue reports whether key holds the boolean true.
func (n *node) isTrue(key string) bool {
	v := n.get(key)
	return v != nil && v.kind == kindBool && v.boolean
}

// isBool reports whether n is the boolean b.
func (n *node) isBool(b bool) bool {
	return n != nil && n.kind == kindBool && n.boolean == b
}

// pointer resolves a JSON pointer ("" or "/a/b", already percent-decoded)
// against n. It returns nil when a segment does not exist.
func (n *node) pointer(ptr string) *node {
	if ptr == "" {
		return n
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	cur := n
	for _, seg := range strings.Split(ptr[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch {
		case cur == nil:
			return nil
		case cur.kind == kindObject:
			cur = cur.get(seg)
		case cur.kind == kindArray:
			i, ok := arrayIndex(seg)
			if !ok || i >= len(cur.items) {
				return nil
			}
			cur = cur.items[i]
		default:
			return nil
		}
	}
	return cur
}

func arrayIndex(seg string) (int, bool) {
	if seg == "" || len(seg) > 9 || (len(seg) > 1 && seg[0] == '0') {
		return 0, false
	}
	i := 0
	for _, c := range seg {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	return i, true
}

// literal writes n as JSON text, which is also a valid TypeScript literal
// type: strings, numbers, true/false/null, tuples and object type literals.
func (n *node) literal(b *strings.Builder) {
	switch n.kind {
	case kindNull:
		b.WriteString("null")
	case kindBool:
		if n.boolean {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case kindNumber:
		b.WriteString(n.text)
	case kindString:
		b.WriteString(quote(n.text))
	case kindArray:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteString(", ")
			}
			it.literal(b)
		}
		b.WriteByte(']')
	case kindObject:
		if len(n.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{ ")
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(propertyName(k))
			b.WriteString(": ")
			n.vals[i].literal(b)
		}
		b.WriteString(" }")
	}
}

// literalString is n rendered by literal.
func (n *node) literalString() string {
	var b strings.Builder
	n.literal(&b)
	return b.String()
}

// quote renders s as a double-quoted string literal (JSON escaping without
// HTML escapes, which is valid TypeScript).
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // strings always encode
	return strings.TrimSuffix(buf.String(), "\n")
}

// isIdent reports whether s is a plain ASCII JavaScript identifier and can
// be written as a property name without quotes.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// propertyName renders a property key: bare when it is an identifier, else
// quoted.
func propertyName(k string) string {
	if isIdent(k) {
		return k
	}
	return quote(k)
}
