// Record two people and how they relate, then read the graph back.
await tools.mcp__memory__create_entities({
  entities: [
    { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
    { name: "Charles", entityType: "person", observations: ["designed the Analytical Engine"] },
  ],
});
await tools.mcp__memory__create_relations({
  relations: [{ from: "Ada", to: "Charles", relationType: "worked_with" }],
});
const graph = await tools.mcp__memory__read_graph();
const people = graph.structuredContent.entities.filter((e) => e.entityType === "person");
const found = await tools.mcp__memory__search_nodes({ query: "engine" });
return {
  people: people.map((p) => p.name),
  relations: graph.structuredContent.relations.length,
  matches: found.structuredContent.entities.map((e) => e.name),
};
