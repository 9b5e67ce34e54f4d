package render

import (
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/codemode-host/codemode-host/protocol"
)

// ChatToolMessage is the Chat Completions tool message that answers the
// tool call toolCallID with res. A tool message carries only text, so each
// image is a note in it ("[image 1: image/png, 2.1 KiB — shown in the next
// user message]") and comes back in images, as image_url parts (data URL
// and detail) for ChatImageMessage. Chat Completions wants every tool
// message of a turn right after the assistant message that made the calls:
// send the images' user message after the last of them.
func ChatToolMessage(toolCallID string, res *protocol.CellResult) (tool openai.ChatCompletionMessageParamUnion, images []openai.ChatCompletionContentPartUnionParam) {
	ps := parts(res)
	text := joinText(ps, func(n int, it *protocol.Item) string {
		images = append(images, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
			URL:    it.ImageURL,
			Detail: it.Detail,
		}))
		return fmt.Sprintf("[image %d: %s, %s — shown in the next user message]", n, MediaType(it.ImageURL), size(len(it.ImageURL)))
	})
	return openai.ToolMessage(text, toolCallID), images
}

// ChatImageMessage is the user message that shows the images
// ChatToolMessage set aside (for one tool call or several, in order),
// after a text part that says where they come from. It returns false when
// there are none.
func ChatImageMessage(images []openai.ChatCompletionContentPartUnionParam) (openai.ChatCompletionMessageParamUnion, bool) {
	if len(images) == 0 {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	content := make([]openai.ChatCompletionContentPartUnionParam, 0, len(images)+1)
	content = append(content, openai.TextContentPart("The images the tool results above refer to, in order:"))
	content = append(content, images...)
	return openai.UserMessage(content), true
}
