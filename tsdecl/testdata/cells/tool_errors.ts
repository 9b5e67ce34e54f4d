// A failed call rejects with a ToolError; its code says why.
const paths = ["/srv/project/README.md", "/srv/missing.txt"];
const out: Record<string, string> = {};
for (const path of paths) {
  try {
    const r = await tools.mcp__filesystem__read_text_file({ path });
    out[path] = r.structuredContent.content.slice(0, 80);
  } catch (e) {
    if (e instanceof ToolError) {
      out[path] = `${e.code} from ${e.tool}: ${e.message}`;
      if (e.code === "denied" || e.code === "limit_exceeded") break;
    } else {
      throw e;
    }
  }
}
const settled = await Promise.allSettled(paths.map((path) => tools.mcp__filesystem__get_file_info({ path })));
const failed = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
console.warn(`${failed.length} of ${settled.length} failed`);
return out;
