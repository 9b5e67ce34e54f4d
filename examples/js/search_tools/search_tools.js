// ALL_TOOLS lists every bound tool (deferred ones too); searchTools ranks
// them for a query with BM25.
text(`${ALL_TOOLS.length} tools`);
const hits = searchTools("post to a slack channel", 2);
text(hits.map((t) => t.name).join(", "));
const [best] = searchTools("calendar meeting");
return await tools[best.name]({ title: "standup" });
