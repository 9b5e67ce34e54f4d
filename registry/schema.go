package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxSchemaErrors caps how many problems an invalid-arguments error lists.
const maxSchemaErrors = 6

var schemaSeq atomic.Uint64

// compileSchema compiles a tool's input schema. A nil or empty schema
// gives a nil *jsonschema.Schema: any object is accepted.
func compileSchema(name ToolName, raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("registry: the input schema of %s is not valid JSON: %w; fix the tool's Spec.InputSchema", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := fmt.Sprintf("mem:///tool/%d.json", schemaSeq.Add(1))
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("registry: the input schema of %s can't be loaded: %w; fix the tool's Spec.InputSchema", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("registry: the input schema of %s does not compile: %w; fix the tool's Spec.InputSchema", name, err)
	}
	return s, nil
}

// mustSchema compiles one of the registry's own schemas.
func mustSchema(name ToolName, raw string) *jsonschema.Schema {
	s, err := compileSchema(name, json.RawMessage(raw))
	if err != nil {
		panic(err)
	}
	return s
}

// validateArgs checks a function call's input: a JSON object that matches
// the schema (if any). The returned message is written for the model: it
// says where the arguments are wrong and what to do.
func validateArgs(name ToolName, schema *jsonschema.Schema, input json.RawMessage) string {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return fmt.Sprintf("registry: the arguments of %s are not valid JSON (%v); send a JSON object", name, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return fmt.Sprintf("registry: %s takes a JSON object of arguments; got %s", name, jsonKind(doc))
	}
	if schema == nil {
		return ""
	}
	err = schema.Validate(doc)
	if err == nil {
		return ""
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fmt.Sprintf("registry: the arguments of %s do not match its input schema: %v", name, err)
	}
	return fmt.Sprintf("registry: invalid arguments for %s:\n%s\nFix these arguments to match the tool's input schema and call it again.", name, describeValidation(verr))
}

// describeValidation flattens a validation error into "- at <path>: <why>"
// lines sorted by location, without group headers, capped at
// maxSchemaErrors.
func describeValidation(verr *jsonschema.ValidationError) string {
	out := verr.BasicOutput()
	var lines []string
	seen := map[string]bool{}
	for _, u := range out.Errors {
		if u.Error == nil {
			continue
		}
		msg := u.Error.String()
		if strings.HasPrefix(msg, "validation failed") || strings.Contains(msg, "doesn't validate with") ||
			strings.HasSuffix(msg, "' failed") {
			continue // group headers ("'anyOf' failed"): their causes say more
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "(top level)"
		}
		line := fmt.Sprintf("- at %s: %s", loc, msg)
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return "- " + strings.ReplaceAll(verr.Error(), "\n", " ")
	}
	// The validator walks a schema's properties in map order: sort, so a
	// call gets the same text every time (and the top level first).
	slices.Sort(lines)
	if len(lines) > maxSchemaErrors {
		n := len(lines) - maxSchemaErrors
		lines = append(lines[:maxSchemaErrors], fmt.Sprintf("- and %d more", n))
	}
	return strings.Join(lines, "\n")
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
