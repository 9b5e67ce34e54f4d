package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/registry"
)

// conversation is one multi-turn exchange with the model: the whole input
// so far is sent with every request, so any Responses endpoint works
// (nothing relies on the server keeping state).
type conversation struct {
	a       *Agent
	model   openai.Client
	session *bridge.Session
	input   responses.ResponseInputParam
	// names maps this step's wire names to the tools they name.
	names map[string]registry.ToolName
}

func newConversation(a *Agent, session *bridge.Session) *conversation {
	return &conversation{a: a, model: openai.NewClient(a.cfg.ModelOptions...), session: session}
}

// modelCall is a tool call the model made, of either kind: a function
// call (JSON arguments) or a custom tool call (free text).
type modelCall struct {
	callID string
	name   string
	custom bool
	// input is the function call's arguments (JSON text) or the custom
	// call's text.
	input string
}

// run is the loop: ask the model, run the tool calls it made, send their
// outputs, until it answers without calling a tool or MaxTurns requests
// were made.
func (c *conversation) run(ctx context.Context, prompt string) (string, error) {
	cfg := c.a.cfg
	c.input = append(c.input, responses.ResponseInputItemParamOfMessage(prompt, responses.EasyInputMessageRoleUser))
	for turn := 1; turn <= cfg.MaxTurns; turn++ {
		set, err := c.a.toolSet()
		if err != nil {
			return "", err
		}
		resp, err := c.ask(ctx, set)
		if err != nil {
			return "", fmt.Errorf("agent: model request %d: %w", turn, err)
		}
		var calls []modelCall
		for _, item := range resp.Output {
			if in, ok := inputItem(item); ok {
				c.input = append(c.input, in)
			}
			switch item.Type {
			case "function_call":
				fc := item.AsFunctionCall()
				calls = append(calls, modelCall{callID: fc.CallID, name: fc.Name, input: fc.Arguments})
			case "custom_tool_call":
				cc := item.AsCustomToolCall()
				calls = append(calls, modelCall{callID: cc.CallID, name: cc.Name, custom: true, input: cc.Input})
			}
		}
		if len(calls) == 0 {
			answer := resp.OutputText()
			if strings.TrimSpace(answer) == "" {
				return "", fmt.Errorf("agent: the model ended turn %d with neither a tool call nor an answer (status %s)", turn, resp.Status)
			}
			return answer, nil
		}
		for _, mc := range calls {
			fmt.Fprintf(cfg.Log, "turn %d: %s\n", turn, mc.name)
			c.input = append(c.input, c.handle(ctx, set, mc))
		}
	}
	return "", fmt.Errorf("agent: no final answer after %d model requests (Config.MaxTurns)", cfg.MaxTurns)
}

// ask sends the conversation so far with this step's tools.
func (c *conversation) ask(ctx context.Context, set *registry.ToolSet) (*responses.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.a.cfg.RequestTimeout)
	defer cancel()
	tools, names, err := c.toolParams(set)
	if err != nil {
		return nil, err
	}
	c.names = names
	return c.model.Responses.New(ctx, responses.ResponseNewParams{
		Model:        c.a.cfg.Model,
		Instructions: param.NewOpt(instructions),
		Input:        responses.ResponseNewParamsInputUnion{OfInputItemList: c.input},
		Tools:        tools,
	})
}

// inputItem is an output item of the model as an input item of the next
// request: messages, reasoning and tool calls go back as they came.
func inputItem(item responses.ResponseOutputItemUnion) (responses.ResponseInputItemUnionParam, bool) {
	switch item.Type {
	case "message":
		p := item.AsMessage().ToParam()
		return responses.ResponseInputItemUnionParam{OfOutputMessage: &p}, true
	case "reasoning":
		p := item.AsReasoning().ToParam()
		return responses.ResponseInputItemUnionParam{OfReasoning: &p}, true
	case "function_call":
		p := item.AsFunctionCall().ToParam()
		return responses.ResponseInputItemUnionParam{OfFunctionCall: &p}, true
	case "custom_tool_call":
		p := item.AsCustomToolCall().ToParam()
		return responses.ResponseInputItemUnionParam{OfCustomToolCall: &p}, true
	}
	return responses.ResponseInputItemUnionParam{}, false
}

// textOutput answers mc with text, in the item type of its kind.
func textOutput(mc modelCall, text string) responses.ResponseInputItemUnionParam {
	if mc.custom {
		return responses.ResponseInputItemUnionParam{OfCustomToolCallOutput: &responses.ResponseCustomToolCallOutputParam{
			CallID: mc.callID,
			Output: responses.ResponseCustomToolCallOutputOutputUnionParam{OfString: param.NewOpt(text)},
		}}
	}
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: param.NewOpt(mc.callID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(text)},
	}}
}

// errorText is a failed call as the model reads it.
func errorText(err error) string {
	return "Error: " + strings.TrimSpace(err.Error())
}

var errNoTool = errors.New("agent: no such tool in this step's tool list")
