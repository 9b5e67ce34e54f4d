// A minimal codemode-host parent written from docs/PROTOCOL.md alone, in
// Node.js with @msgpack/msgpack: it proves the protocol works without the
// Go code. It spawns `HOST stdio`, shakes hands, opens a session, runs a
// cell that calls a tool, answers the call, checks the result and closes
// stdin. It exits 0 on success and 1 with a message on any mismatch.
//
// Usage: node test/node/client.mjs PATH/TO/codemode-host

import { spawn } from "node:child_process";
import { encode, decode } from "@msgpack/msgpack";

const hostPath = process.argv[2];
if (!hostPath) {
  console.error("usage: node client.mjs PATH/TO/codemode-host");
  process.exit(2);
}

const fail = (msg) => {
  console.error("client.mjs: " + msg);
  process.exit(1);
};
const expect = (cond, msg) => cond || fail(msg);

const host = spawn(hostPath, ["stdio"], { stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
host.stderr.on("data", (b) => (stderr += b)); // drain stderr (section 1)
host.on("error", (e) => fail("cannot start the host: " + e.message));
host.stdin.on("error", (e) => fail("the host stopped reading its input: " + e.message + "; stderr:\n" + stderr));

// Framing (section 2): 4-byte big-endian length, then one msgpack map.
const send = (msg) => {
  const body = encode(msg);
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  Buffer.from(body.buffer, body.byteOffset, body.length).copy(frame, 4);
  host.stdin.write(frame);
};

let buf = Buffer.alloc(0);
const queue = [];
let waiter = null;
host.stdout.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  while (buf.length >= 4) {
    const n = buf.readUInt32BE(0);
    if (n === 0 || n > 8 << 20) fail(`bad frame length ${n}`);
    if (buf.length < 4 + n) break;
    const msg = decode(buf.subarray(4, 4 + n));
    buf = buf.subarray(4 + n);
    queue.push(msg);
  }
  if (waiter && queue.length) {
    const w = waiter;
    waiter = null;
    w();
  }
});
host.stdout.on("end", () => {
  if (waiter) {
    const w = waiter;
    waiter = null;
    w();
  }
});

// next resolves with the next frame from the host (null at end of output).
const next = () =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no frame within 10s; host stderr:\n" + stderr)), 10000);
    const take = () => {
      clearTimeout(timer);
      resolve(queue.length ? queue.shift() : null);
    };
    if (queue.length || host.stdout.readableEnded) take();
    else waiter = take;
  });

const expectType = async (t) => {
  const m = await next();
  expect(m && m.t === t, `expected ${t}, got ${JSON.stringify(m)}`);
  return m;
};

// JSON values travel as JSON text in bin (section 3, "JSON values").
const jsonBin = (v) => new TextEncoder().encode(JSON.stringify(v));
const fromJSONBin = (u8) => JSON.parse(typeof u8 === "string" ? u8 : new TextDecoder().decode(u8));

try {
  send({ t: "hello", id: 1, versions: [1], capabilities: ["stream_output"], client: "node-client/1" });
  const ok = await expectType("hello.ok");
  expect(ok.id === 1 && ok.version === 1, "hello.ok must echo id 1 and select version 1");
  expect(typeof ok.v8_version === "string" && ok.v8_version.length > 0, "hello.ok must name the V8 version");
  expect(ok.limits && ok.limits.frame_bytes > 0, "hello.ok must carry limits with frame_bytes");

  send({ t: "session.open", id: 2, session: "s1" });
  const opened = await expectType("session.opened");
  expect(opened.id === 2 && opened.session === "s1", "session.opened must echo id and session");

  send({
    t: "exec",
    id: 3,
    session: "s1",
    source: 'const r = await tools.search({query: "go"});\ntext("hits: " + r.hits.length);\nreturn r.hits[0];',
    tools: [
      {
        name: "search",
        description: "Search the docs.",
        input_schema: jsonBin({ type: "object", properties: { query: { type: "string" } } }),
      },
    ],
    yield_ms: 5000,
  });
  const started = await expectType("exec.started");
  expect(started.id === 3 && typeof started.cell === "string", "exec.started must echo id 3 and name the cell");

  const call = await expectType("tool.call");
  expect(call.name === "search" && call.kind === "function", "tool.call must name search, kind function");
  expect(call.cell === started.cell, "tool.call must name the cell exec.started named");
  const input = fromJSONBin(call.input);
  expect(input.query === "go", `tool input should be {"query":"go"}, got ${JSON.stringify(input)}`);
  send({ t: "tool.result", id: call.id, value: jsonBin({ hits: ["alpha", "beta"] }) });

  const res = await expectType("cell.result");
  expect(res.id === 3, "cell.result must answer the exec (id 3)");
  expect(res.status === "completed", `status should be completed, got ${res.status}: ${JSON.stringify(res.error)}`);
  const texts = (res.items || []).map((i) => i.text);
  expect(JSON.stringify(texts) === JSON.stringify(["hits: 2", "alpha"]), `unexpected items ${JSON.stringify(texts)}`);
  expect(res.stats && res.stats.tool_calls === 1, "stats.tool_calls should be 1");
  await expectType("cell.closed");

  send({ t: "ping", id: 4 });
  const pong = await expectType("pong");
  expect(pong.id === 4, "pong must echo id 4");

  host.stdin.end(); // end of input: the host exits 0 (section 5.4)
  const end = await next();
  expect(end === null, "nothing may follow the end of input, got " + JSON.stringify(end));
  const code = await new Promise((resolve) => (host.exitCode !== null ? resolve(host.exitCode) : host.on("exit", resolve)));
  expect(code === 0, `host exit status should be 0, got ${code}`);
  console.log("client.mjs: ok");
} catch (e) {
  host.kill();
  fail(e.message);
}
