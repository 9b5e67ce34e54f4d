// Package todo is the todo_write tool: the worked example of typed
// per-session tool state (registry.StateKey) and of parameter renaming
// (registry.Spec.ParamNames).
//
// The tool keeps a session's todo list. Its code reads the argument
// "items", which it advertises to the model and to scripts as "todos":
//
//	await tools.todo_write({todos: [{content: "write tests", status: "in_progress"}]})
//
// The list lives in the session's state (List, under the key "todo.list"),
// so a later call in the same session, from a script or from the model,
// sees it, and, with registry.StateConfig.Dir set, so does a call made
// after the parent restarted.
package todo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-host/codemode-host/registry"
)

// Name is the tool's name.
const Name = "todo_write"

// Item is one entry of a todo list.
type Item struct {
	// Content says what to do.
	Content string `json:"content"`
	// Status is "pending", "in_progress" or "completed".
	Status string `json:"status"`
}

// List is a session's todo list, as kept in its state.
var List = registry.NewStateKey[[]Item]("todo.list")

// args is what the tool's code reads; the model writes "todos" for Items.
type args struct {
	Items []Item `json:"items"`
	Merge bool   `json:"merge"`
}

const schema = `{
  "type": "object",
  "properties": {
    "items": {
      "type": "array",
      "description": "The todo list. Without merge it replaces the session's list.",
      "items": {
        "type": "object",
        "properties": {
          "content": {"type": "string", "minLength": 1},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
        },
        "required": ["content", "status"],
        "additionalProperties": false
      }
    },
    "merge": {"type": "boolean", "description": "Update the items whose content matches, and append the others, instead of replacing the list."}
  },
  "required": ["items"],
  "additionalProperties": false
}`

// Tool returns the todo_write tool. Its structured result is the
// session's whole list after the call ([]Item); the model reads it as one
// line per item.
func Tool() registry.Tool {
	spec := registry.Spec{
		Name:        registry.Plain(Name),
		Description: "Write the session's todo list, to plan and track multi-step work. Returns the whole list.",
		InputSchema: json.RawMessage(schema),
		ParamNames:  map[string]string{"items": "todos"},
	}
	return registry.NewFunc(spec, func(ctx context.Context, inv registry.Invocation) (registry.Output, error) {
		var in args
		if err := inv.Bind(&in); err != nil {
			return registry.Output{}, err
		}
		if err := checkOneInProgress(in.Items); err != nil {
			return registry.Output{}, fmt.Errorf("todo: %s %w", inv.ParamName("items"), err)
		}
		var list []Item
		err := List.Update(registry.SessionStateOf(ctx), func(l *[]Item) error {
			if !in.Merge {
				*l = nil
			}
			*l = merge(*l, in.Items)
			list = *l
			if err := checkOneInProgress(list); err != nil {
				return fmt.Errorf("todo: the list after merging %w", err)
			}
			return nil
		})
		if err != nil {
			return registry.Output{}, err
		}
		out, err := registry.JSONOutput(list)
		if err != nil {
			return registry.Output{}, err
		}
		out.Text = render(list)
		return out, nil
	})
}

// merge updates the items of list whose content matches one of items and
// appends the others, in order.
func merge(list, items []Item) []Item {
	for _, it := range items {
		found := false
		for i := range list {
			if list[i].Content == it.Content {
				list[i].Status, found = it.Status, true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	if list == nil {
		list = []Item{}
	}
	return list
}

func checkOneInProgress(items []Item) error {
	n := 0
	for _, it := range items {
		if it.Status == "in_progress" {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("has %d items in progress; keep one in progress at a time and mark the others pending or completed", n)
	}
	return nil
}

func render(list []Item) string {
	if len(list) == 0 {
		return "The todo list is empty."
	}
	marks := map[string]string{"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
	var b strings.Builder
	for _, it := range list {
		fmt.Fprintf(&b, "%s %s\n", marks[it.Status], it.Content)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
