// Run against the real servers by registry/mcp's TestCell_resultsAreWhatTheDeclarationsSay
// and type-checked here: each result has exactly the keys its declaration gives.
const allowed = await tools.mcp__filesystem__list_allowed_directories();
const root = allowed.structuredContent.content.split("\n").find((line) => line.startsWith("/")) ?? "/";
await tools.mcp__filesystem__write_file({ path: `${root}/note.txt`, content: "hello" });
const [file, graph, echo, weather] = await Promise.all([
  tools.mcp__filesystem__read_text_file({ path: `${root}/note.txt` }),
  tools.mcp__memory__read_graph(),
  tools.mcp__everything__echo({ message: "hi" }),
  tools.mcp__everything__get_structured_content({ location: "Chicago" }),
]);
let code = "";
try {
  await tools.mcp__filesystem__read_text_file({ path: "/not/an/allowed/directory.txt" });
} catch (e) {
  if (e instanceof ToolError) code = e.code;
}
const first = echo.content[0];
return {
  file: Object.keys(file),
  text: file.structuredContent.content,
  graph: Object.keys(graph),
  entities: graph.structuredContent.entities.length,
  echo: Object.keys(echo),
  echoed: first?.type === "text" ? first.text : "",
  weather: Object.keys(weather),
  temperature: typeof weather.structuredContent.temperature,
  code,
};
