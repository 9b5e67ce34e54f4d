// Add pairs in a loop; get_sum answers in a text block.
let total = 0;
for (let i = 1; i <= 5; i++) {
  const r = await tools.mcp__everything__get_sum({ a: i, b: i * 10 });
  const first = r.content[0];
  if (first?.type === "text") {
    const n = Number(first.text.match(/-?\d+(\.\d+)?$/)?.[0] ?? NaN);
    if (!Number.isNaN(n)) total += n;
  }
}
text(`total: ${total}`);
