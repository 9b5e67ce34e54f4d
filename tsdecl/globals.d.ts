// The globals a codemode-host cell sees, beside the ECMAScript library.
// Check a cell with tsc in strict mode, lib es2023 and no @types (no DOM:
// there is no fetch, document or window; tsdecl.TSConfig): the references
// below add the later built-ins the host's standard library has, and
// nothing V8 10.9 lacks (resizable or transferable ArrayBuffers,
// SharedArrayBuffer and Atomics, disposables, Float16Array). The bound
// tools' `interface Tools { ... }` (tsdecl.ToolsInterface) merges with
// the one below. A cell's top-level await and return type-check once it
// is wrapped as the body of an async function (tsdecl.WrapCell). Printed
// by `codemode-host types --globals`.
/// <reference lib="es2024.collection" />
/// <reference lib="es2024.object" />
/// <reference lib="es2024.promise" />
/// <reference lib="es2024.string" />
/// <reference lib="esnext.array" />
/// <reference lib="esnext.collection" />
/// <reference lib="esnext.iterator" />
/// <reference lib="esnext.promise" />
/// <reference lib="esnext.error" />

/** An MCP content block. */
type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/**
 * The bound tools, by script name: `tools.<namespace>__<name>` with
 * characters outside [A-Za-z0-9_$] replaced by `_`. Each returns a promise
 * of its result; a failed call rejects with a ToolError. The bound tools'
 * declarations add their own signatures here.
 */
interface Tools {
  /** Any bound tool by its script name (one found with searchTools or ALL_TOOLS, say). */
  [name: string]: (args?: any) => Promise<unknown>;
}
declare const tools: Tools;

/** A bound tool as ALL_TOOLS and searchTools list it. */
interface ToolInfo {
  /** The script name: call it as tools[name](...). */
  readonly name: string;
  readonly description: string;
  /** Its TypeScript declaration. */
  readonly declaration: string;
}
/** Every bound tool, deferred ones included. */
declare const ALL_TOOLS: readonly ToolInfo[];
/**
 * The bound tools that best match query (BM25 over names, descriptions and
 * parameters), best first. A query over 1,000 characters is a RangeError.
 */
declare function searchTools(query: string, limit?: number): ToolInfo[];

/** The codes of ToolError. */
type ToolErrorCode =
  | "tool_failed"
  | "invalid_arguments"
  | "unknown_tool"
  | "denied"
  | "not_in_code_mode"
  | "cancelled"
  | "limit_exceeded"
  | "host_died"
  | "internal";
/** The error a failed tool call rejects with. */
declare class ToolError extends Error {
  constructor(message?: string, code?: string, tool?: string);
  name: "ToolError";
  /** Why the call failed. */
  code: ToolErrorCode;
  /** The tool's qualified name. */
  tool: string;
}

/** Adds a text output item: strings as they are, anything else as JSON. */
declare function text(value: unknown): void;
/** Output items; levels other than log are marked with theirs. */
declare const console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
  trace(...data: unknown[]): void;
  /** Prints "Assertion failed…" at the error level when condition is falsy. */
  assert(condition?: unknown, ...data: unknown[]): void;
  /** Prints "label: n", n counting the calls with that label. */
  count(label?: string): void;
  countReset(label?: string): void;
  dir(item?: unknown): void;
  dirxml(...data: unknown[]): void;
  /** Prints tabularData as console.log does (no table drawing). */
  table(tabularData?: unknown): void;
  /** Indents the lines printed until groupEnd() by two spaces. */
  group(...label: unknown[]): void;
  groupCollapsed(...label: unknown[]): void;
  groupEnd(): void;
  time(label?: string): void;
  /** Prints "label: 1.234ms", the time since time(label). */
  timeEnd(label?: string): void;
  timeLog(label?: string, ...data: unknown[]): void;
};
/** How closely the model looks at an image. */
type ImageDetail = "auto" | "low" | "high" | "original";
/**
 * Adds an image output item from a data: URL, `{image_url, detail}` or an
 * MCP image block (another content block is a TypeError). Remote URLs are
 * refused. Default detail "high".
 */
declare function image(value: string | { image_url: string; detail?: ImageDetail } | McpContent, detail?: ImageDetail): void;
/** Sends progress text to the parent at once. Blank text is a TypeError. */
declare function notify(text: unknown): void;
/**
 * Keeps a JSON value for later cells of the session (it commits when the
 * cell completes). `store(key, undefined)` deletes the key.
 */
declare function store(key: string, value: unknown): void;
/** A fresh copy of a stored value, or undefined. */
declare function load<T = any>(key: string): T | undefined;

/** Runs callback after ms on the cell's event loop; a pending timer does not keep the cell alive. */
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
declare function clearTimeout(id?: number): void;
/** Runs callback every ms until cleared or the cell ends. */
declare function setInterval<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
declare function clearInterval(id?: number): void;
declare function queueMicrotask(callback: () => void): void;
/** Returns the output so far to whoever waits on the cell; the script keeps running. */
declare function yield_control(): void;
/** Ends the cell successfully; try/catch/finally cannot intercept it. */
declare function exit(): never;

// The standard library beside ECMAScript.

declare function atob(data: string): string;
declare function btoa(data: string): string;
declare class TextEncoder {
  readonly encoding: "utf-8";
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}
declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams);
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  toString(): string;
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}
declare class URL {
  constructor(url: string | URL, base?: string | URL);
  static canParse(url: string | URL, base?: string | URL): boolean;
  static parse(url: string | URL, base?: string | URL): URL | null;
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  toJSON(): string;
}
/** A deep copy of a value (structured clone algorithm). */
declare function structuredClone<T>(value: T): T;
declare const performance: {
  /** Milliseconds since the cell started, with sub-millisecond precision. */
  now(): number;
};
declare const crypto: {
  randomUUID(): `${string}-${string}-${string}-${string}-${string}`;
  getRandomValues<T extends ArrayBufferView>(array: T): T;
};
declare class DOMException extends Error {
  constructor(message?: string, name?: string);
  readonly code: number;
}

// Built-ins of ES2025 and later that the host adds and TypeScript's libs
// do not declare yet.

type Base64Options = { alphabet?: "base64" | "base64url" };
interface Uint8Array<TArrayBuffer extends ArrayBufferLike = ArrayBufferLike> {
  toBase64(options?: Base64Options & { omitPadding?: boolean }): string;
  toHex(): string;
  setFromBase64(
    string: string,
    options?: Base64Options & { lastChunkHandling?: "loose" | "strict" | "stop-before-partial" },
  ): { read: number; written: number };
  setFromHex(string: string): { read: number; written: number };
}
interface Uint8ArrayConstructor {
  fromBase64(
    string: string,
    options?: Base64Options & { lastChunkHandling?: "loose" | "strict" | "stop-before-partial" },
  ): Uint8Array<ArrayBuffer>;
  fromHex(string: string): Uint8Array<ArrayBuffer>;
}
interface RegExpConstructor {
  escape(string: string): string;
}
interface Math {
  sumPrecise(numbers: Iterable<number>): number;
}
interface Map<K, V> {
  getOrInsert(key: K, value: V): V;
  getOrInsertComputed(key: K, callback: (key: K) => V): V;
}
interface WeakMap<K extends WeakKey, V> {
  getOrInsert(key: K, value: V): V;
  getOrInsertComputed(key: K, callback: (key: K) => V): V;
}
