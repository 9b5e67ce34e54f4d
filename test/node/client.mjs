// A minimal codemode-host parent written from docs/PROTOCOL.md alone, in
// Node.js with @msgpack/msgpack: it proves the protocol works without the
// Go code. It spawns `HOST stdio`, shakes hands, opens a session, runs a
// cell that calls a tool, answers the call, checks the result, checks the
// rules issue #19 settled (when exec and wait are answered, duplicate ids,
// cell ids across a re-opened session, output_bytes and truncated, the
// id-less error, a first frame over the cap) and closes stdin. It exits 0
// on success and 1 with a message on any mismatch.
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

// stash holds frames read while looking for another; nextWhere returns
// the first frame (stashed or new) that pred accepts.
const stash = [];
const nextWhere = async (pred, what) => {
  const i = stash.findIndex(pred);
  if (i >= 0) return stash.splice(i, 1)[0];
  for (;;) {
    const m = await next();
    if (m === null) fail(`the host's output ended while waiting for ${what}`);
    if (pred(m)) return m;
    stash.push(m);
  }
};
const reply = (t, id) => nextWhere((m) => m.t === t && m.id === id, `${t} ${id}`);
const anyReply = (id) => nextWhere((m) => m.id === id && m.t !== "tool.call", `a reply to ${id}`);
const toolCall = () => nextWhere((m) => m.t === "tool.call", "a tool.call");
const searchTool = [{ name: "search", input_schema: jsonBin({ type: "object" }) }];

// The rules docs/PROTOCOL.md settles for issue #19, items 1-4 and the
// id-less error notice.
async function issue19() {
  // 1. An exec is answered at its end (or yield_ms, or yield_control()),
  // never by new output or a notify.
  send({ t: "exec", id: 10, session: "s1", yield_ms: 60000, tools: searchTool,
    source: 'console.log("a"); notify("n"); await tools.search({}); return "done"' });
  await reply("exec.started", 10);
  let call = await toolCall();
  const n = await nextWhere((m) => m.t === "notify", "notify");
  expect(n.text === "n", "notify text");
  // 2. Any request reusing an id in flight gets duplicate_id with that id;
  // the earlier request keeps its own reply.
  send({ t: "ping", id: 10 });
  const dup = await reply("error", 10);
  expect(dup.code === "duplicate_id" && dup.failed_t === "ping", "ping with an exec's id: " + JSON.stringify(dup));
  send({ t: "tool.result", id: call.id, value: jsonBin({}) });
  let res = await reply("cell.result", 10);
  expect(res.status === "completed", `exec answered before its end: ${res.status}`);
  expect(JSON.stringify(res.items.map((i) => i.text)) === '["a","done"]', "exec items " + JSON.stringify(res.items));
  const firstCell = res.cell;

  // A wait is answered soon after new output (section 5.2).
  send({ t: "exec", id: 11, session: "s1", yield_ms: 60000, tools: searchTool,
    source: 'await tools.search({}); text("late"); await tools.search({}); return 1' });
  const st = await reply("exec.started", 11);
  call = await toolCall();
  send({ t: "cancel", target: 11 });
  res = await reply("cell.result", 11);
  expect(res.status === "yielded", "cancel answers the exec now");
  send({ t: "wait", id: 12, session: "s1", cell: st.cell, yield_ms: 60000 });
  send({ t: "tool.result", id: call.id, value: jsonBin({}) });
  res = await reply("cell.result", 12);
  expect(res.status === "yielded" && res.items[0].text === "late", "wait wakes on output: " + JSON.stringify(res));
  call = await toolCall();
  send({ t: "terminate", id: 13, session: "s1", cell: st.cell });
  res = await reply("cell.result", 13);
  expect(res.status === "terminated", "terminate: " + res.status);

  // 3. Cell ids go on across a session closed and opened again.
  send({ t: "session.close", id: 14, session: "s1" });
  await reply("session.closed", 14);
  send({ t: "session.open", id: 15, session: "s1", limits: { output_tokens: 1000000, output_bytes: 10000 } });
  const reopened = await reply("session.opened", 15);
  expect(reopened.limits.output_bytes === 10000, "output_bytes override: " + JSON.stringify(reopened.limits));
  send({ t: "wait", id: 16, session: "s1", cell: firstCell });
  const late = await reply("error", 16);
  expect(late.code === "unknown_cell", "a late wait names no cell: " + JSON.stringify(late));

  // 4. output_bytes cuts the text; truncated is set; the note is where the
  // cut is; the return value is kept.
  send({ t: "exec", id: 17, session: "s1", source: 'text("a".repeat(30000) + "z".repeat(30000)); return "end"' });
  const st4 = await reply("exec.started", 17);
  expect(![firstCell, st.cell].includes(st4.cell), `cell id ${st4.cell} reused after the session was opened again`);
  res = await reply("cell.result", 17);
  const t4 = res.items.map((i) => i.text);
  expect(res.truncated === true, "truncated must be set when output_bytes cut a text");
  expect(t4[0].startsWith("aaa") && t4[1].includes("tokens truncated") && t4[t4.length - 2].endsWith("zzz") && t4[t4.length - 1] === "end",
    "the note stands where the cut is: " + JSON.stringify(t4.map((x) => x.slice(0, 40))));

  // A request whose id cannot be read: an error without an id, and the
  // connection stays up.
  send({ t: "exec", id: "x" });
  const notice = await nextWhere((m) => m.t === "error" && m.id === undefined, "an id-less error");
  expect(notice.code === "bad_field" && notice.failed_t === "exec", "notice: " + JSON.stringify(notice));
  send({ t: "ping", id: 18 });
  await reply("pong", 18);
  stash.length = 0; // cell.closed events
}

// The first frame over the cap: error too_large without an id, then the
// host closes its output and exits 2.
async function firstFrameOverTheCap() {
  const h = spawn(hostPath, ["stdio"], { stdio: ["pipe", "pipe", "ignore"] });
  let out = Buffer.alloc(0);
  h.stdout.on("data", (b) => (out = Buffer.concat([out, b])));
  const ended = new Promise((resolve) => h.stdout.on("end", resolve));
  const exited = new Promise((resolve) => h.on("exit", resolve));
  const hdr = Buffer.alloc(4);
  hdr.writeUInt32BE(9000000, 0);
  h.stdin.on("error", () => {}); // the host may close before reading on
  h.stdin.write(hdr);
  await ended;
  const code = await exited;
  expect(out.length >= 4 && out.readUInt32BE(0) === out.length - 4, "one frame, then the end: " + out.toString("hex"));
  const e = decode(out.subarray(4));
  expect(e.t === "error" && e.code === "too_large" && e.id === undefined, "first frame over the cap: " + JSON.stringify(e));
  expect(code === 2, `exit status after a frame over the cap should be 2, got ${code}`);
}

try {
  await firstFrameOverTheCap();
  send({ t: "hello", id: 1, versions: [1], capabilities: ["stream_output"], client: "node-client/1" });
  const ok = await expectType("hello.ok");
  expect(ok.id === 1 && ok.version === 1, "hello.ok must echo id 1 and select version 1");
  expect(typeof ok.v8_version === "string" && ok.v8_version.length > 0, "hello.ok must name the V8 version");
  expect(ok.limits && ok.limits.frame_bytes > 0, "hello.ok must carry limits with frame_bytes");
  expect(ok.limits.output_bytes === 1048576, "hello.ok must report output_bytes (1 MiB)");

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

  await issue19();

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
