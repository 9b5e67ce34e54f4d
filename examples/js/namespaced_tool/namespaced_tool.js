// Tools outside the default namespace are bound as namespace__name, with
// characters outside [A-Za-z0-9_$] replaced by "_".
const names = ALL_TOOLS.map((t) => t.name);
text(names.join(", "));
const file = await tools.mcp__files__read_file({ path: "README.md" });
const issue = await tools.github__get_issue({ number: 7 });
return { file, issue };
