package render

import (
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/codemode-host/codemode-host/protocol"
)

// FunctionCallOutput is the Responses API input item that answers the
// function call callID (exec or wait offered as a function tool) with
// res: a function_call_output whose output is the text when the cell made
// no image, else input_text and input_image parts in order (images as
// data URLs, with their detail).
func FunctionCallOutput(callID string, res *protocol.CellResult) responses.ResponseInputItemUnionParam {
	out := responses.ResponseInputItemFunctionCallOutputParam{CallID: param.NewOpt(callID)}
	if !hasImages(res) {
		out.Output.OfString = param.NewOpt(Text(res))
	} else {
		out.Output.OfResponseFunctionCallOutputItemArray = FunctionCallOutputContent(res)
	}
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &out}
}

// FunctionCallOutputContent is res as function_call_output content parts:
// input_text and input_image, in order.
func FunctionCallOutputContent(res *protocol.CellResult) responses.ResponseFunctionCallOutputItemListParam {
	var list responses.ResponseFunctionCallOutputItemListParam
	for _, p := range parts(res) {
		if p.image == nil {
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{
				OfInputText: &responses.ResponseInputTextContentParam{Text: p.text},
			})
			continue
		}
		list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{
			OfInputImage: &responses.ResponseInputImageContentParam{
				ImageURL: param.NewOpt(p.image.ImageURL),
				Detail:   responses.ResponseInputImageContentDetail(p.image.Detail),
			},
		})
	}
	return list
}

// CustomToolCallOutput is the Responses API input item that answers the
// custom (freeform) tool call callID (exec offered as a custom tool) with
// res: a custom_tool_call_output, its output the text when the cell made
// no image, else input_text and input_image parts in order.
func CustomToolCallOutput(callID string, res *protocol.CellResult) responses.ResponseInputItemUnionParam {
	out := responses.ResponseCustomToolCallOutputParam{CallID: callID}
	if !hasImages(res) {
		out.Output.OfString = param.NewOpt(Text(res))
	} else {
		out.Output.OfOutputContentList = CustomToolCallOutputContent(res)
	}
	return responses.ResponseInputItemUnionParam{OfCustomToolCallOutput: &out}
}

// CustomToolCallOutputContent is res as custom_tool_call_output content
// parts: input_text and input_image, in order. The API requires an
// image's detail; an item without one gets "auto".
func CustomToolCallOutputContent(res *protocol.CellResult) []responses.ResponseCustomToolCallOutputOutputOutputContentListItemUnionParam {
	var list []responses.ResponseCustomToolCallOutputOutputOutputContentListItemUnionParam
	for _, p := range parts(res) {
		if p.image == nil {
			list = append(list, responses.ResponseCustomToolCallOutputOutputOutputContentListItemUnionParam{
				OfInputText: &responses.ResponseInputTextParam{Text: p.text},
			})
			continue
		}
		list = append(list, responses.ResponseCustomToolCallOutputOutputOutputContentListItemUnionParam{
			OfInputImage: &responses.ResponseInputImageParam{
				ImageURL: param.NewOpt(p.image.ImageURL),
				Detail:   responses.ResponseInputImageDetail(detailOr(p.image.Detail, "auto")),
			},
		})
	}
	return list
}
