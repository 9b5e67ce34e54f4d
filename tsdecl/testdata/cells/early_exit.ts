// Top-level return in a branch, and exit().
const dirs = await tools.mcp__filesystem__list_allowed_directories();
const text0 = dirs.content.find((c) => c.type === "text");
if (!text0 || text0.type !== "text") {
  return "no allowed directories";
}
if (text0.text.includes("/tmp")) {
  text("only a temporary directory is allowed; stopping");
  exit();
}
const tree = await tools.mcp__filesystem__directory_tree({ path: "/srv/project", excludePatterns: ["node_modules"] });
return tree.structuredContent.content.length;
