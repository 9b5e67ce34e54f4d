// want: TS2339
const r = await tools.mcp__filesystem__read_text_file({ path: "/srv/a.txt" });
if (r.isError) throw new Error("failed");
