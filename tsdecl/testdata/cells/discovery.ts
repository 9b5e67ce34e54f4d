// Find deferred tools with searchTools and ALL_TOOLS, call them by name.
const hits = searchTools("add two numbers", 3);
if (hits.length === 0) return "no tool adds numbers";
console.log(hits.map((h) => `${h.name}: ${h.description}`).join("\n"));
const result = await tools[hits[0].name]({ a: 2, b: 3 });
const memoryTools = ALL_TOOLS.filter((t) => t.name.startsWith("mcp__memory__"));
const declarations = memoryTools.map((t) => t.declaration).join("\n");
return { result, memoryTools: memoryTools.length, bytes: declarations.length };
