// The standard library beside ECMAScript, and ES2023 methods.
const started = performance.now();
const encoded = btoa("hello");
const bytes = new TextEncoder().encode(atob(encoded));
const decoded = new TextDecoder().decode(bytes);
const url = new URL("https://example.com/search?q=code+mode&page=2");
const params = new URLSearchParams(url.search);
params.set("page", "3");
const copy = structuredClone({ nested: { list: [1, 2, 3] } });
copy.nested.list.push(4);
const id = crypto.randomUUID();
const random = crypto.getRandomValues(new Uint8Array(4));
const numbers = [5, 3, 9, 1];
const last = numbers.findLast((n) => n > 2);
const sorted = numbers.toSorted((a, b) => a - b);
const replaced = numbers.with(0, 0);
const owns = Object.hasOwn(copy, "nested");
const byParity = Object.groupBy(numbers, (n) => (n % 2 ? "odd" : "even"));
const counts = Map.groupBy(["a", "bb", "cc"], (s) => s.length);
const { promise, resolve } = Promise.withResolvers<number>();
resolve(1);
const tried = await Promise.try(() => 2);
const both = new Set([1, 2]).union(new Set([2, 3]));
const firstTwo = Iterator.from(numbers.values()).filter((n) => n > 1).take(2).toArray();
const fromAsync = await Array.fromAsync([Promise.resolve(1), 2]);
const hex = new Uint8Array([1, 255]).toHex();
const b64 = Uint8Array.fromBase64(new Uint8Array([104, 105]).toBase64()).length;
const pattern = new RegExp(RegExp.escape("a.b*c"));
const seen = new Map<string, number>().getOrInsert("k", 1);
const total = Math.sumPrecise([0.1, 0.2]);
const wellFormed = "abc".isWellFormed();
const isErr = Error.isError(new DOMException("stop", "AbortError"));
const parsed = URL.parse("not a url");
return {
  decoded, host: url.hostname, page: params.get("page"), id: id.length, random: random.length,
  last, sorted, replaced, owns, at: numbers.at(-1), ms: performance.now() - started,
  byParity, counts: [...counts.keys()], got: await promise, tried, both: [...both], firstTwo, fromAsync, hex, b64,
  pattern: pattern.source, seen, total, wellFormed, isErr, parsed,
};
