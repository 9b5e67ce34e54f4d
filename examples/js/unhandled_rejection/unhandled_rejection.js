// A rejection nobody handles fails the cell, even when the top-level code
// is still waiting on something else.
async function background() {
  await tools.quick();
  throw new Error("background task failed");
}

background(); // not awaited
await tools.slow();
await tools.slow();
text("never printed");
