// Every console level is captured, in order, with its level.
console.log("log", 1, true, null, undefined);
console.info("info", { nested: { list: [1, 2, 3] } });
console.warn("warn");
console.error("error", new Error("shown as name: message"));
console.debug("debug");
text(["text() takes any value", 42]);
