// image() takes a data: URL, {image_url, detail} or an MCP image block.
// Remote URLs are refused with a message that says what to do.
const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
image(png);
image({ type: "image", data: png.split(",")[1], mimeType: "image/png" }, "low");
try {
  image("https://example.com/cat.png");
} catch (e) {
  text(e.message);
}
