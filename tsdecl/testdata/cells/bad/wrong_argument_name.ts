// want: TS2353
await tools.mcp__filesystem__read_text_file({ path: "/srv/a.txt", lines: 5 });
