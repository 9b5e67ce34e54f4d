// setTimeout runs on the cell's event loop, interleaved with tool calls.
// A timer still pending when the script ends does not keep it alive.
const events = [];
setTimeout(() => events.push("timer 300ms"), 300);
setTimeout(() => events.push("timer 0ms"), 0);
const cancelled = setTimeout(() => events.push("cancelled"), 10);
clearTimeout(cancelled);
events.push(`tool: ${await tools.slow_echo({ v: "x" }).then((r) => r.v)}`);
await new Promise((r) => setTimeout(r, 350));
setTimeout(() => text("never: the script has finished"), 60000);
return events;
