package tsdecl

import (
	"net/url"
	"strconv"
	"strings"
)

// Operator precedence of a rendered type, to decide where parentheses go.
const (
	precPrimary      = iota // keyword, literal, object, tuple, array
	precIntersection        // A & B
	precUnion               // A | B
)

// ts is a rendered TypeScript type.
type ts struct {
	text string
	prec int
}

var (
	tsUnknown   = ts{text: "unknown"}
	tsNever     = ts{text: "never"}
	tsNull      = ts{text: "null"}
	tsAnyObject = ts{text: "{ [key: string]: unknown }"}
)

// unlimited is a depth that is never reached.
const unlimited = 1 << 30

// renderer renders one schema document. It is not safe for concurrent use.
type renderer struct {
	opts Options
	root *node
	// resources is the stack of schema resources ($id) being rendered; local
	// refs resolve against the top one.
	resources []*node
	// active counts the expansions of each ref target now being rendered.
	active map[*node]int
	// recursed marks targets whose expansion was cut off inside themselves.
	recursed map[*node]bool
	anchors  map[*node]map[string]*node
	// expansions counts ref expansions in the whole document.
	expansions int
	// work counts bytes of rendered text; over is set when it passes budget.
	work, budget int
	over         bool
	// depth is the object/array nesting depth of the schema being rendered.
	depth int
	// docDepth: doc comments only on properties of objects at depth < docDepth.
	docDepth int
	// maxDepth: objects and arrays at depth >= maxDepth render as opaque.
	maxDepth int
}

// tier is one attempt at rendering within the size cap. descCap, when
// set, lowers Options.MaxDescription.
type tier struct{ docDepth, maxDepth, descCap int }

// tiers are tried in order until the rendering fits Options.MaxBytes: full
// detail, then doc comments on top-level properties only, then shallower
// types with shorter comments, then top-level names and shallow types.
var tiers = []tier{
	{unlimited, unlimited, 0},
	{1, unlimited, 0},
	{1, 4, 120},
	{1, 2, 80},
	{1, 1, 60},
	{0, 1, 0},
}

func newRenderer(root *node, opts Options, t tier) *renderer {
	if t.descCap > 0 && t.descCap < opts.MaxDescription {
		opts.MaxDescription = t.descCap
	}
	return &renderer{
		opts:      opts,
		root:      root,
		resources: []*node{root},
		active:    map[*node]int{},
		recursed:  map[*node]bool{},
		budget:    opts.MaxWork,
		docDepth:  t.docDepth,
		maxDepth:  t.maxDepth,
	}
}

// charge records produced text and reports whether the budget still holds.
func (r *renderer) charge(s string) bool {
	r.work += len(s)
	// Any piece longer than the cap makes the whole too long: stop early.
	if r.work > r.budget || len(s) > r.opts.MaxBytes {
		r.over = true
	}
	return !r.over
}

// render renders any schema value.
func (r *renderer) render(n *node) ts {
	if r.over || n == nil {
		return tsUnknown
	}
	switch n.kind {
	case kindBool:
		if n.boolean {
			return tsUnknown
		}
		return tsNever
	case kindObject:
	default:
		return tsUnknown
	}
	if id := n.str("$id"); id != "" && n != r.resources[len(r.resources)-1] {
		r.resources = append(r.resources, n)
		defer func() { r.resources = r.resources[:len(r.resources)-1] }()
	}

	var members []ts
	if ref := n.get("$ref"); ref != nil && ref.kind == kindString {
		members = append(members, r.renderRef(ref.text))
	}
	if all := n.get("allOf"); all != nil && all.kind == kindArray {
		for _, v := range all.items {
			members = append(members, r.render(v))
		}
	}
	for _, key := range [...]string{"anyOf", "oneOf"} {
		if u := n.get(key); u != nil && u.kind == kindArray {
			var variants []ts
			for _, v := range u.items {
				if t := r.render(v); t.text != "unknown" {
					variants = append(variants, t)
				}
			}
			if len(variants) > 0 {
				members = append(members, r.union(variants))
			}
		}
	}
	members = compact(members)

	base, weak, hasNull := r.renderBase(n)
	switch {
	case base == nil:
	case len(members) == 0 || !weak:
		members = append([]ts{*base}, members...)
	case hasNull:
		// A bare type keyword beside a $ref or combinator adds nothing but
		// its null.
		members = []ts{r.union([]ts{r.intersection(members), tsNull})}
	}
	var out ts
	switch len(members) {
	case 0:
		out = tsUnknown
	case 1:
		out = members[0]
	default:
		out = r.intersection(members)
	}
	if (n.isTrue("nullable") || n.isTrue("x-nullable")) && out.text != "unknown" && out.text != "null" {
		out = r.union([]ts{out, tsNull})
	}
	return out
}

// compact drops members that add nothing to an intersection.
func compact(members []ts) []ts {
	out := members[:0]
	for _, m := range members {
		if m.text != "unknown" {
			out = append(out, m)
		}
	}
	return out
}

// renderBase renders the keywords of n other than $ref and combinators:
// const, enum, type, and implied object/array structure. weak reports a
// bare type keyword with no structure (string, { [key: string]: unknown },
// unknown[]), which a $ref or combinator beside it makes redundant; hasNull
// reports that type allowed null.
func (r *renderer) renderBase(n *node) (base *ts, weak, hasNull bool) {
	if c := n.get("const"); c != nil {
		t := r.literal(c)
		return &t, false, false
	}
	if e := n.get("enum"); e != nil && e.kind == kindArray && len(e.items) > 0 {
		t := r.enum(e.items)
		return &t, false, false
	}
	var types []string
	switch t := n.get("type"); {
	case t == nil:
	case t.kind == kindString:
		types = []string{t.text}
	case t.kind == kindArray:
		for _, it := range t.items {
			if it.kind == kindString {
				types = append(types, it.text)
			}
		}
	}
	if len(types) == 0 {
		switch {
		case n.has("properties") || n.has("additionalProperties") || n.has("patternProperties"):
			types = []string{"object"}
		case n.has("items") || n.has("prefixItems"):
			types = []string{"array"}
		default:
			return nil, false, false
		}
	}
	weak = true
	parts := make([]ts, 0, len(types))
	for _, typ := range types {
		var t ts
		switch typ {
		case "string":
			t = ts{text: "string"}
		case "number", "integer":
			t = ts{text: "number"}
		case "boolean":
			t = ts{text: "boolean"}
		case "null":
			t, hasNull = tsNull, true
		case "array":
			t = r.renderArray(n)
			weak = weak && t.text == "unknown[]"
		case "object":
			t = r.renderObject(n)
			weak = weak && t.text == tsAnyObject.text
		default:
			t = tsUnknown
		}
		parts = append(parts, t)
	}
	t := r.union(parts)
	return &t, weak, hasNull
}

// literal renders a JSON value as a literal type.
func (r *renderer) literal(v *node) ts {
	s := v.literalString()
	if !r.charge(s) {
		return tsUnknown
	}
	return ts{text: s}
}

// enum renders enum values as a union of literals. Past MaxEnumValues it
// renders the values' types with a comment showing the first few.
func (r *renderer) enum(values []*node) ts {
	if len(values) <= r.opts.MaxEnumValues {
		parts := make([]ts, len(values))
		for i, v := range values {
			parts[i] = r.literal(v)
		}
		return r.union(parts)
	}
	var kinds []ts
	seen := map[kind]bool{}
	for _, v := range values {
		if seen[v.kind] {
			continue
		}
		seen[v.kind] = true
		switch v.kind {
		case kindString:
			kinds = append(kinds, ts{text: "string"})
		case kindNumber:
			kinds = append(kinds, ts{text: "number"})
		case kindBool:
			kinds = append(kinds, ts{text: "boolean"})
		case kindNull:
			kinds = append(kinds, tsNull)
		default:
			kinds = append(kinds, tsUnknown)
		}
	}
	t := r.union(kinds)
	var ex []string
	for _, v := range values[:3] {
		ex = append(ex, v.literalString())
	}
	c := commentText("one of " + strconv.Itoa(len(values)) + " values, e.g. " + strings.Join(ex, ", "))
	t.text += " /* " + c + " */"
	if len(kinds) > 1 {
		t.prec = precUnion
	}
	r.charge(t.text)
	return t
}

// union joins alternatives, dropping duplicates and never.
func (r *renderer) union(parts []ts) ts {
	seen := make(map[string]bool, len(parts))
	var out []string
	for _, p := range parts {
		if p.text == "never" || seen[p.text] {
			continue
		}
		seen[p.text] = true
		out = append(out, p.text)
	}
	switch len(out) {
	case 0:
		return tsNever
	case 1:
		for _, p := range parts {
			if p.text == out[0] {
				return p
			}
		}
	}
	s := strings.Join(out, " | ")
	if !r.charge(s) {
		return tsUnknown
	}
	return ts{text: s, prec: precUnion}
}

// intersection joins members with &, parenthesising unions.
func (r *renderer) intersection(parts []ts) ts {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		switch {
		case p.text == "never":
			return tsNever
		case p.text == "unknown" || seen[p.text]:
			continue
		}
		seen[p.text] = true
		if p.prec == precUnion {
			out = append(out, "("+p.text+")")
		} else {
			out = append(out, p.text)
		}
	}
	switch len(out) {
	case 0:
		return tsUnknown
	case 1:
		for _, p := range parts {
			if p.text == out[0] || "("+p.text+")" == out[0] {
				return p
			}
		}
	}
	s := strings.Join(out, " & ")
	if !r.charge(s) {
		return tsUnknown
	}
	return ts{text: s, prec: precIntersection}
}

// child renders a subschema one level deeper.
func (r *renderer) child(n *node) ts {
	r.depth++
	t := r.render(n)
	r.depth--
	return t
}

// arrayOf renders an array of t, as T[] when that reads unambiguously.
func arrayOf(t ts) string {
	if t.prec != precPrimary || strings.Contains(t.text, "/*") {
		return "Array<" + t.text + ">"
	}
	return t.text + "[]"
}

// renderArray renders array keywords: items, prefixItems, draft-07 tuple
// items and additionalItems, minItems for optional tuple elements.
func (r *renderer) renderArray(n *node) ts {
	if r.depth >= r.maxDepth {
		return ts{text: "unknown[]"}
	}
	items := n.get("items")
	var tuple []*node
	var rest *node
	if p := n.get("prefixItems"); p != nil && p.kind == kindArray {
		tuple, rest = p.items, items
	} else if items != nil && items.kind == kindArray {
		tuple, rest = items.items, n.get("additionalItems")
	}
	if tuple == nil {
		switch {
		case items == nil || items.isBool(true):
			return ts{text: "unknown[]"}
		case items.isBool(false):
			return ts{text: "[]"}
		}
		s := arrayOf(r.child(items))
		r.charge(s)
		return ts{text: s}
	}
	required := len(tuple)
	if m := n.get("minItems"); m != nil && m.kind == kindNumber {
		if v, ok := arrayIndex(m.text); ok && v < required {
			required = v
		}
	}
	elems := make([]string, 0, len(tuple)+1)
	for i, it := range tuple {
		t := r.child(it)
		s := t.text
		if i >= required {
			if t.prec != precPrimary {
				s = "(" + s + ")"
			}
			s += "?"
		}
		elems = append(elems, s)
	}
	if rest != nil && !rest.isBool(false) {
		elems = append(elems, "..."+arrayOf(r.child(rest)))
	}
	s := "[" + strings.Join(elems, ", ") + "]"
	r.charge(s)
	return ts{text: s}
}

// member is one line (or block) inside an object type.
type member struct {
	doc  string // rendered doc comment, "" for none
	text string // "name?: T;" without a trailing newline
}

// renderObject renders properties, required, additionalProperties,
// unevaluatedProperties and patternProperties.
func (r *renderer) renderObject(n *node) ts {
	if r.depth >= r.maxDepth {
		return tsAnyObject
	}
	required := map[string]bool{}
	if req := n.get("required"); req != nil && req.kind == kindArray {
		for _, it := range req.items {
			if it.kind == kindString {
				required[it.text] = true
			}
		}
	}
	var props []member
	withDocs := r.depth < r.docDepth
	if p := n.get("properties"); p != nil && p.kind == kindObject {
		for i, name := range p.keys {
			if r.over {
				return tsUnknown
			}
			schema := p.vals[i]
			t := r.child(schema)
			opt := "?"
			if required[name] {
				opt = ""
			}
			m := member{text: propertyName(name) + opt + ": " + t.text + ";"}
			if withDocs {
				m.doc = r.docComment(name, schema)
			}
			props = append(props, m)
		}
	}
	index := r.indexSignatures(n, len(props) == 0, withDocs)

	// An index signature's type must admit every property, so a typed one
	// beside properties goes in its own object, intersected.
	var extra []member
	if len(props) > 0 {
		kept := index[:0]
		for _, m := range index {
			if strings.HasSuffix(m.text, ": unknown;") {
				kept = append(kept, m)
			} else {
				extra = append(extra, m)
			}
		}
		index = kept
	}
	obj := r.objectLiteral(append(props, index...))
	if len(extra) == 0 {
		return obj
	}
	return r.intersection([]ts{obj, r.objectLiteral(extra)})
}

// indexSignatures renders additionalProperties and patternProperties as
// index signatures. empty says the object declares no properties: an
// object with neither properties nor any of these keywords is open.
func (r *renderer) indexSignatures(n *node, empty, withDocs bool) []member {
	additional := n.get("additionalProperties")
	if additional == nil {
		additional = n.get("unevaluatedProperties")
	}
	patterns := n.get("patternProperties")
	if patterns != nil && (patterns.kind != kindObject || len(patterns.keys) == 0) {
		patterns = nil
	}
	if additional == nil && patterns == nil {
		if empty {
			return []member{{text: "[key: string]: unknown;"}}
		}
		return nil
	}
	var out []member
	// Every signature keyed by plain string merges into one.
	var stringTypes, templateTypes []ts
	var stringDocs []string
	if patterns != nil {
		r.depth++
		for i, pat := range patterns.keys {
			t := r.render(patterns.vals[i])
			if key, ok := templateKey(pat); ok {
				m := member{text: "[key: " + key + "]: " + t.text + ";"}
				if withDocs {
					m.doc = r.docComment("", patterns.vals[i])
				}
				out = append(out, m)
				templateTypes = append(templateTypes, t)
				continue
			}
			stringTypes = append(stringTypes, t)
			stringDocs = append(stringDocs, "/"+pat+"/")
		}
		r.depth--
	}
	if additional != nil && !additional.isBool(false) {
		if len(stringTypes) > 0 {
			stringDocs = append(stringDocs, "any other key")
		}
		stringTypes = append(stringTypes, r.child(additional))
	}
	if len(stringTypes) > 0 {
		// Template keys are strings too: their types must fit the string
		// signature.
		m := member{text: "[key: string]: " + r.union(append(stringTypes, templateTypes...)).text + ";"}
		if withDocs && len(stringDocs) > 0 {
			m.doc = r.docText("Keys matching "+strings.Join(stringDocs, ", ")+".", nil)
		}
		out = append(out, m)
	}
	return out
}

// templateKey turns a simple prefix or suffix regex (^x-, ^foo_.*, _id$)
// into a template literal index key.
func templateKey(pat string) (string, bool) {
	lit := func(s string) (string, bool) {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s) && strings.IndexByte(".-_/$", s[i+1]) >= 0:
				i++
				b.WriteByte(s[i])
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':' || c == '@':
				b.WriteByte(c)
			default:
				return "", false
			}
		}
		return b.String(), b.Len() > 0
	}
	switch {
	case strings.HasPrefix(pat, "^") && !strings.HasSuffix(pat, "$"):
		p, ok := lit(strings.TrimSuffix(pat[1:], ".*"))
		if !ok {
			return "", false
		}
		return "`" + p + "${string}`", true
	case strings.HasSuffix(pat, "$") && !strings.HasPrefix(pat, "^"):
		s, ok := lit(strings.TrimPrefix(pat[:len(pat)-1], ".*"))
		if !ok {
			return "", false
		}
		return "`${string}" + s + "`", true
	}
	return "", false
}

// objectLiteral lays out members inline when short and undocumented, else
// one per line.
func (r *renderer) objectLiteral(members []member) ts {
	if len(members) == 0 {
		return ts{text: "{}"}
	}
	inline := true
	size := 4
	for _, m := range members {
		size += len(m.text) + 1
		if m.doc != "" || strings.Contains(m.text, "\n") {
			inline = false
		}
	}
	var b strings.Builder
	if inline && size <= r.opts.InlineWidth {
		b.WriteString("{ ")
		for i, m := range members {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(m.text)
		}
		s := strings.TrimSuffix(b.String(), ";") + " }"
		r.charge(s)
		return ts{text: s}
	}
	b.WriteString("{\n")
	for _, m := range members {
		if m.doc != "" {
			indentTo(&b, m.doc, "  ")
		}
		indentTo(&b, m.text, "  ")
	}
	b.WriteString("}")
	s := b.String()
	r.charge(s)
	return ts{text: s}
}

// indentTo writes every line of s to b with prefix and a newline.
func indentTo(b *strings.Builder, s, prefix string) {
	for line := range strings.SplitSeq(s, "\n") {
		if line != "" {
			b.WriteString(prefix)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

// renderRef expands a local reference ("#", "#/json/pointer", "#anchor")
// against the current schema resource. Remote and dangling refs render as
// unknown. A ref met again inside its own expansion more than MaxRefDepth
// times renders as unknown with a "recursive" comment, and its outer
// expansion is labelled with the same name.
func (r *renderer) renderRef(ref string) ts {
	target := r.resolve(ref)
	if target == nil {
		return tsUnknown
	}
	name := r.refName(ref, target)
	if r.active[target] >= r.opts.MaxRefDepth {
		r.recursed[target] = true
		return ts{text: "unknown /* recursive: " + name + " */"}
	}
	if r.expansions >= r.opts.MaxRefExpansions {
		return ts{text: "unknown /* " + name + " */"}
	}
	r.expansions++
	r.active[target]++
	t := r.render(target)
	r.active[target]--
	if r.active[target] == 0 && r.recursed[target] {
		delete(r.recursed, target)
		t.text = "/* " + name + " */ " + t.text
		r.charge(t.text)
	}
	return t
}

// resolve finds the target of a local ref in the current resource.
func (r *renderer) resolve(ref string) *node {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if dec, err := url.PathUnescape(frag); err == nil {
		frag = dec
	}
	res := r.resources[len(r.resources)-1]
	if frag == "" || strings.HasPrefix(frag, "/") {
		return res.pointer(frag)
	}
	return r.anchor(res, frag)
}

// anchor finds "$anchor": name inside res, not entering nested resources.
func (r *renderer) anchor(res *node, name string) *node {
	m, ok := r.anchors[res]
	if !ok {
		m = map[string]*node{}
		var walk func(n *node, top bool)
		walk = func(n *node, top bool) {
			switch n.kind {
			case kindObject:
				if !top && n.str("$id") != "" {
					return
				}
				if a := n.str("$anchor"); a != "" {
					if _, dup := m[a]; !dup {
						m[a] = n
					}
				}
				for _, v := range n.vals {
					walk(v, false)
				}
			case kindArray:
				for _, v := range n.items {
					walk(v, false)
				}
			}
		}
		walk(res, true)
		if r.anchors == nil {
			r.anchors = map[*node]map[string]*node{}
		}
		r.anchors[res] = m
	}
	return m[name]
}

// refName is a short name for a ref target: its title, else the last
// pointer segment, else "root".
func (r *renderer) refName(ref string, target *node) string {
	name := target.str("title")
	if name == "" {
		frag := strings.TrimPrefix(ref, "#")
		if i := strings.LastIndexByte(frag, '/'); i >= 0 {
			frag = frag[i+1:]
		}
		frag = strings.ReplaceAll(strings.ReplaceAll(frag, "~1", "/"), "~0", "~")
		if dec, err := url.PathUnescape(frag); err == nil {
			frag = dec
		}
		name = frag
	}
	if name == "" {
		name = "root"
	}
	if len(name) > 60 {
		name = name[:60]
	}
	return commentText(name)
}
