// Checks the protocol's golden frames (protocol/testdata/golden/*.hex) with
// a non-Go msgpack implementation, as docs/PROTOCOL.md §11 asks of every
// client: each file is one frame whose length prefix matches its body,
// whose body decodes to a map with the "t" the file is named for (<t>.hex
// or <t>.<variant>.hex), and
// which decodes to the same value after an encode → decode round trip.
// Exits 1 with a message on the first mismatch.
//
// Usage: node test/node/golden.mjs [DIR]

import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { encode, decode } from "@msgpack/msgpack";

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] || join(here, "..", "..", "protocol", "testdata", "golden");
const fail = (msg) => {
  console.error("golden.mjs: " + msg);
  process.exit(1);
};

const files = readdirSync(dir).filter((f) => f.endsWith(".hex"));
if (files.length === 0) fail(`no .hex files in ${dir}`);
for (const f of files) {
  const bytes = Buffer.from(readFileSync(join(dir, f), "utf8").replace(/\s+/g, ""), "hex");
  if (bytes.length < 5) fail(`${f}: too short`);
  const n = bytes.readUInt32BE(0);
  if (n !== bytes.length - 4) fail(`${f}: length prefix ${n}, body ${bytes.length - 4} bytes`);
  const msg = decode(new Uint8Array(bytes.subarray(4))); // plain bytes, not a Buffer
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) fail(`${f}: body is not a map`);
  // <t>.hex, or <t>.<variant>.hex for another frame of type t.
  const name = f.replace(/\.hex$/, "");
  if (typeof msg.t !== "string" || !(name === msg.t || name.startsWith(msg.t + ".")))
    fail(`${f}: t is ${JSON.stringify(msg.t)}, want ${JSON.stringify(name)} or a prefix of it`);
  if (!isDeepStrictEqual(decode(encode(msg)), msg)) fail(`${f}: decode → encode → decode changed the value`);
}
console.log(`golden.mjs: ok (${files.length} frames)`);
