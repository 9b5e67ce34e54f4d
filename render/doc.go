// Package render turns a cell's result (protocol.CellResult, from
// bridge.Session.Exec or Wait) into the tool output a model reads, in the
// shapes of three APIs, built from their official Go SDKs' types:
//
//   - the OpenAI Responses API: a function_call_output or
//     custom_tool_call_output input item (FunctionCallOutput,
//     CustomToolCallOutput), whose output is a string or, when the cell
//     made images, a list of input_text and input_image parts;
//   - OpenAI Chat Completions: a tool message (ChatToolMessage), which can
//     carry only text there: images come back separately, as image_url
//     parts for one user message after the turn's tool messages
//     (ChatImageMessage), and the tool message says so;
//   - the Anthropic Messages API: a tool_result block (AnthropicToolResult)
//     with text and base64 image blocks, is_error set when the cell failed.
//
// Every output starts with the same one-line status header (Header):
//
//	Script completed · 1.2 s
//	Script failed · 312 ms
//	Script running with cell ID c3 · 10.0 s — call wait with cell_id "c3" to keep waiting
//
// then the cell's items in order (console levels other than log prefixed
// as "[warn] "), then, for a cell that did not complete, the error: name,
// message, line and column, and at most MaxStackFrames stack frames. A
// result without items or error says "(no output)". The wait tool's
// description refers to the running header's words (RunningPrefix).
//
// The functions are pure and safe from any goroutine.
package render
