// want: TS2345
await tools.mcp__everything__get_sum({ a: 1 });
