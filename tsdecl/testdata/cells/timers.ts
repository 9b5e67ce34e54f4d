// Timers, microtasks, progress and yielding.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
let ticks = 0;
const every = setInterval(() => ticks++, 5);
queueMicrotask(() => console.debug("microtask ran"));
notify("starting the long operation");
const long = tools.mcp__everything__trigger_long_running_operation({ duration: 2, steps: 4 });
await sleep(20);
yield_control();
const done = await long;
clearInterval(every);
const timer = setTimeout((who: string) => console.log(`hello ${who}`), 1000, "never");
clearTimeout(timer);
notify(`done after ${ticks} ticks`);
return done.content.length;
