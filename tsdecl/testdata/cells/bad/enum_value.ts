// want: TS2322
await tools.mcp__everything__get_structured_content({ location: "Paris" });
