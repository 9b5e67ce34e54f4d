// want: TS2339
const r = await tools.mcp__everything__echo({ message: "hi" });
return r.structuredContent;
