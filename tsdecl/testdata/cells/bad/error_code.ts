// want: TS2367
try {
  await tools.mcp__memory__read_graph();
} catch (e) {
  if (e instanceof ToolError && e.code === "not_found") text("missing");
}
