// 100 calls in flight at once; they finish out of order (three tools with
// different delays) but Promise.all keeps the order they were made in.
const pick = [tools.slow, tools.medium, tools.fast];
const results = await Promise.all(
  Array.from({ length: 100 }, (_, i) => pick[i % 3]({ i })),
);
const inOrder = results.every((r, i) => r.i === i);
text(`${results.length} results, in order: ${inOrder}`);
return results.slice(0, 5).map((r) => r.i);
