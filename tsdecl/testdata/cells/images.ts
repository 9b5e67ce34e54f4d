// Show an MCP image block, and a data URL at low detail.
const r = await tools.mcp__everything__get_tiny_image();
const block = r.content.find((c) => c.type === "image");
if (block) image(block);
for (const c of r.content) {
  if (c.type === "image") image(`data:${c.mimeType};base64,${c.data}`, "low");
  else if (c.type === "text") text(c.text);
}
const media = await tools.mcp__filesystem__read_media_file({ path: "/srv/project/logo.png" });
for (const item of media.structuredContent.content) {
  if (item.type === "image") image({ image_url: `data:${item.mimeType};base64,${item.data}`, detail: "original" });
}
