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
return {
  decoded, host: url.hostname, page: params.get("page"), id: id.length, random: random.length,
  last, sorted, replaced, owns, at: numbers.at(-1), ms: performance.now() - started,
};
