package render

import (
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/codemode-host/codemode-host/protocol"
)

// anthropicMediaTypes are the image types the Messages API takes in a
// base64 image source.
var anthropicMediaTypes = map[string]anthropic.Base64ImageSourceMediaType{
	"image/jpeg": anthropic.Base64ImageSourceMediaTypeImageJPEG,
	"image/png":  anthropic.Base64ImageSourceMediaTypeImagePNG,
	"image/gif":  anthropic.Base64ImageSourceMediaTypeImageGIF,
	"image/webp": anthropic.Base64ImageSourceMediaTypeImageWebP,
}

// AnthropicToolResult is the Messages API tool_result block that answers
// the tool_use toolUseID with res: text blocks and image blocks (base64
// sources) in order, is_error set when the cell failed, timed out or ran
// out of memory (IsError). The API has no image detail; an image it cannot
// take (not base64, or not JPEG, PNG, GIF or WebP) becomes a text note
// that names its type.
func AnthropicToolResult(toolUseID string, res *protocol.CellResult) anthropic.ToolResultBlockParam {
	block := anthropic.ToolResultBlockParam{ToolUseID: toolUseID}
	if IsError(res) {
		block.IsError = anthropic.Bool(true)
	}
	n := 0
	for _, p := range parts(res) {
		if p.image == nil {
			block.Content = append(block.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: p.text}})
			continue
		}
		n++
		mt, b64, data, _ := parseDataURL(p.image.ImageURL)
		if t, ok := anthropicMediaTypes[mt]; ok && b64 {
			block.Content = append(block.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
				Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{Data: data, MediaType: t}},
			}})
			continue
		}
		note := fmt.Sprintf("[image %d: %s, %s — left out: this API takes base64 JPEG, PNG, GIF or WebP images]", n, MediaType(p.image.ImageURL), size(len(p.image.ImageURL)))
		block.Content = append(block.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: note}})
	}
	return block
}

// AnthropicContentBlock is AnthropicToolResult as a content block for a
// user message.
func AnthropicContentBlock(toolUseID string, res *protocol.CellResult) anthropic.ContentBlockParamUnion {
	block := AnthropicToolResult(toolUseID, res)
	return anthropic.ContentBlockParamUnion{OfToolResult: &block}
}
