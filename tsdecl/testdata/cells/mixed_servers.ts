// Three servers in one cell: read a file, remember it, echo a summary.
const readme = await tools.mcp__filesystem__read_text_file({ path: "/srv/project/README.md", head: 5 });
const firstLine = readme.structuredContent.content.split("\n")[0] ?? "";
const [added, echoed] = await Promise.all([
  tools.mcp__memory__add_observations({ observations: [{ entityName: "project", contents: [firstLine] }] }),
  tools.mcp__everything__echo({ message: firstLine }),
]);
const note = added.structuredContent.results.flatMap((r) => r.addedObservations);
const reply = echoed.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ");
await tools.mcp__memory__delete_entities({ entityNames: ["scratch"] });
return { note, reply };
