// Top-level await works: the cell runs inside an async function.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
text("start");
await sleep(5);
const value = await Promise.resolve(21);
text(`after await: ${value * 2}`);
