package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
)

// Parameter renaming (Spec.ParamNames): the model and scripts see and send
// the advertised names; the tool's code reads its own. The registry
// rewrites the spec's input schema once, when the tool is added, so the
// model's tool list, the TypeScript declarations, tool_search and argument
// validation all use the advertised names, as do PreToolUse and
// PostToolUse hooks, approval, events and result callbacks (they see the
// call as it was made). Only the tool's Invocation.Input is renamed, on
// the way in, just before the tool runs.

// paramMap is a tool's renaming, both ways.
type paramMap struct {
	toModel map[string]string // code name → advertised name
	toCode  map[string]string // advertised name → code name
}

// ParamName is the name the model and scripts use for the parameter the
// tool's code calls code (Spec.ParamNames), for error messages a tool
// writes about its arguments. It is code when the parameter is not
// renamed. Safe from any goroutine.
func (inv Invocation) ParamName(code string) string {
	if inv.ToolSet == nil {
		return code
	}
	if e := inv.ToolSet.lookup(inv.Name.Key()); e != nil && e.params != nil {
		if m, ok := e.params.toModel[code]; ok {
			return m
		}
	}
	return code
}

// advertiseParams checks spec.ParamNames and rewrites spec.InputSchema to
// use the advertised names. It returns the renaming (nil when there is
// none).
func advertiseParams(spec *Spec) (*paramMap, error) {
	if len(spec.ParamNames) == 0 {
		return nil, nil
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("registry: tool %s: Spec.ParamNames "+format+"; fix Spec.ParamNames or the input schema", append([]any{spec.Name}, args...)...)
	}
	if spec.Kind == protocol.KindFreeform {
		return nil, fail("is set on a freeform tool, which has no parameters")
	}
	top, err := decodeObject(spec.InputSchema)
	if err != nil || top.get("properties") == nil {
		return nil, fail("needs an input schema with \"properties\"")
	}
	props, err := decodeObject(top.get("properties"))
	if err != nil {
		return nil, fail("needs \"properties\" to be an object (%v)", err)
	}
	spec.ParamNames = maps.Clone(spec.ParamNames) // the registry's copy can't change under it
	pm := &paramMap{toModel: map[string]string{}, toCode: map[string]string{}}
	for code, model := range spec.ParamNames {
		switch {
		case props.get(code) == nil:
			return nil, fail("renames %q, which the input schema does not declare", code)
		case model == "":
			return nil, fail("gives %q an empty name", code)
		case pm.toCode[model] != "":
			return nil, fail("gives %q and %q the same name %q", pm.toCode[model], code, model)
		}
		if _, renamed := spec.ParamNames[model]; props.get(model) != nil && !renamed {
			return nil, fail("renames %q to %q, which is already a parameter", code, model)
		}
		pm.toModel[code], pm.toCode[model] = model, code
	}
	props.renameKeys(pm.toModel)
	top.set("properties", props.encode())
	if req := top.get("required"); req != nil {
		var names []string
		if err := json.Unmarshal(req, &names); err != nil {
			return nil, fail("needs \"required\" to be a list of names (%v)", err)
		}
		for i, n := range names {
			if m, ok := pm.toModel[n]; ok {
				names[i] = m
			}
		}
		b, _ := json.Marshal(names) // strings always encode
		top.set("required", b)
	}
	spec.InputSchema = top.encode()
	return pm, nil
}

// checkNames refuses arguments that use a code name the model can't see,
// with the advertised name as the fix. "" means the names are fine.
func (pm *paramMap) checkNames(name ToolName, input json.RawMessage) string {
	obj, err := decodeObject(input)
	if err != nil {
		return "" // validation reports it
	}
	for _, k := range obj.keys {
		if m, ok := pm.toModel[k]; ok && pm.toCode[k] == "" {
			return fmt.Sprintf("registry: %s has no parameter %q; it is called %q, send the arguments again with that name", name, k, m)
		}
	}
	return ""
}

// codeInput renames the advertised argument names in input to the names
// the tool's code reads. input is a validated JSON object.
func (pm *paramMap) codeInput(input json.RawMessage) json.RawMessage {
	if pm == nil {
		return input
	}
	obj, err := decodeObject(input)
	if err != nil {
		return input
	}
	obj.renameKeys(pm.toCode)
	return obj.encode()
}

// object is a JSON object that keeps its keys' order.
type object struct {
	keys   []string
	values []json.RawMessage
}

func decodeObject(raw json.RawMessage) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.keys = append(o.keys, tok.(string))
		o.values = append(o.values, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *object) get(key string) json.RawMessage {
	if i := slices.Index(o.keys, key); i >= 0 {
		return o.values[i]
	}
	return nil
}

func (o *object) set(key string, v json.RawMessage) {
	if i := slices.Index(o.keys, key); i >= 0 {
		o.values[i] = v
		return
	}
	o.keys = append(o.keys, key)
	o.values = append(o.values, v)
}

// renameKeys renames every key found in names, all at once (so swaps work).
func (o *object) renameKeys(names map[string]string) {
	for i, k := range o.keys {
		if n, ok := names[k]; ok {
			o.keys[i] = n
		}
	}
}

func (o *object) encode() json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k) // strings always encode
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.values[i])
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}
