// A Node.js parent of codemode-host, written from docs/PROTOCOL.md alone
// (as test/node/client.mjs is), that measures what one sequential awaited
// tool call costs a non-Go parent, next to the two references it competes
// with, measured in the same process and interleaved round by round:
//
//   - floor: the raw pipe round trip between this Node process and a Go
//     child that echoes frames of the same sizes on its stdin/stdout (a
//     tool.result's size in, a tool.call's size out), through the same
//     event-loop machinery the host rounds use;
//   - codec: this parent's own msgpack and JSON work for one call (decode
//     the tool.call frame and its input, encode the tool.result frame);
//   - host: `HOST stdio` runs one cell of N sequential awaited calls of
//     tools.echo; the cell times itself with Date.now (and its stats), and
//     this parent times the exec from its send to its cell.result, less a
//     trivial cell's.
//
// Usage (bench/run runs it, see bench/nodeparent.go):
//
//	node bench/node/parent.mjs --host bin/codemode-host [--floor-cmd PROG [--floor-arg ARG]...] \
//	     [--n 1000] [--rounds 5] [--write stream|sync]
//
// --floor-cmd starts the Go echo child (bench/run re-executes itself),
// which answers every frame with one of the body size set in
// CODEMODE_BENCH_FRAME_CHILD. --write says how frames leave: through the
// child's stdin stream (stream.write, the default, what a parent normally
// does) or with one fs.writeSync on its descriptor (measured no different).
// It prints one JSON object: per-call microseconds of every round of each
// part.
//
// Node (libuv) gives a child UNIX stream sockets as its stdin and stdout,
// not pipes, unlike Go's os/exec and Python's subprocess: the host must
// treat both alike on its fast path (see bench/README.md).

import { spawn } from "node:child_process";
import { writeSync } from "node:fs";
import { encode, decode } from "@msgpack/msgpack";

const args = process.argv.slice(2);
const opt = { n: 1000, rounds: 5, host: "", floorCmd: "", floorArgs: [], write: "stream" };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const val = () => {
    if (i + 1 >= args.length) usage(`${a} needs a value`);
    return args[++i];
  };
  if (a === "--n") opt.n = Number(val());
  else if (a === "--rounds") opt.rounds = Number(val());
  else if (a === "--host") opt.host = val();
  else if (a === "--floor-cmd") opt.floorCmd = val();
  else if (a === "--floor-arg") opt.floorArgs.push(val());
  else if (a === "--write") opt.write = val();
  else usage(`unknown argument ${a}`);
}
if (!opt.host || !(opt.n > 0) || !(opt.rounds > 0) || !["stream", "sync"].includes(opt.write)) usage("--host is required; --n and --rounds must be positive; --write is stream or sync");

function usage(msg) {
  console.error("parent.mjs: " + msg);
  console.error("usage: node parent.mjs --host BIN [--floor-cmd PROG [--floor-arg ARG]...] [--n 1000] [--rounds 5] [--write stream|sync]");
  process.exit(2);
}

const fail = (msg) => {
  console.error("parent.mjs: " + msg);
  process.exit(1);
};

// JSON values travel as JSON text in bin (PROTOCOL.md §3, "JSON values").
const jsonBin = (v) => new TextEncoder().encode(JSON.stringify(v));
const td = new TextDecoder();
const fromJSONBin = (u8) => JSON.parse(typeof u8 === "string" ? u8 : td.decode(u8));

// frame is one frame (§2): a 4-byte big-endian length, then the msgpack map.
function frame(msg) {
  const body = encode(msg);
  const f = Buffer.allocUnsafe(4 + body.length);
  f.writeUInt32BE(body.length, 0);
  f.set(body, 4);
  return f;
}

// Peer is one child process spoken to in frames: onFrame gets each frame's
// body (a Buffer view) as it completes.
class Peer {
  constructor(cmd, argv, env, what) {
    this.what = what;
    this.child = spawn(cmd, argv, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
    this.stderr = "";
    this.child.stderr.on("data", (b) => {
      this.stderr = (this.stderr + b).slice(-8192); // drain stderr (§1)
    });
    this.child.on("error", (e) => fail(`cannot start ${what}: ${e.message}`));
    this.child.stdin.on("error", (e) => fail(`${what} stopped reading: ${e.message}; stderr:\n${this.stderr}`));
    this.exited = new Promise((resolve) => this.child.on("exit", (code, sig) => resolve(code ?? sig)));
    // The stdin stream's descriptor, for one synchronous write per frame.
    this.fd = this.child.stdin._handle?.fd ?? -1;
    this.onFrame = null;
    this.buf = null;
    this.child.stdout.on("data", (chunk) => this.data(chunk));
    this.child.stdout.on("end", () => {
      if (this.onEnd) this.onEnd();
    });
  }

  data(chunk) {
    let buf = this.buf ? Buffer.concat([this.buf, chunk]) : chunk;
    let off = 0;
    while (buf.length - off >= 4) {
      const n = buf.readUInt32BE(off);
      if (n === 0 || n > 8 << 20) fail(`${this.what}: bad frame length ${n}`);
      if (buf.length - off < 4 + n) break;
      const body = buf.subarray(off + 4, off + 4 + n);
      off += 4 + n;
      this.onFrame(body);
    }
    this.buf = off === buf.length ? null : buf.subarray(off);
  }

  write(f) {
    if (opt.write === "stream" || this.fd < 0) {
      this.child.stdin.write(f);
      return;
    }
    // The descriptor is non-blocking: a full socket gives EAGAIN. Frames
    // here are small and answered one at a time, so that never happens
    // in this benchmark; fall back to the stream if it does.
    let off = 0;
    try {
      while (off < f.length) off += writeSync(this.fd, f, off, f.length - off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      this.child.stdin.write(f.subarray(off));
    }
  }

  async close() {
    this.child.stdin.end();
    return this.exited;
  }
}

const echoTool = [{ name: "echo", description: "Returns its input." }];
const seqSource = (n) => `
const t0 = Date.now();
let s = 0;
for (let i = 0; i < ${n}; i++) { const r = await tools.echo({ i }); s += r.i; }
return { ms: Date.now() - t0, s };`;
const trivialSource = "return 1";

// Host drives `HOST stdio`: requests by id, tool calls answered at once.
class Host {
  constructor(bin) {
    this.peer = new Peer(bin, ["stdio"], {}, "the host");
    this.nextID = 1;
    this.pending = new Map();
    this.peer.onFrame = (body) => this.frame(body);
    this.peer.onEnd = () => {
      for (const p of this.pending.values()) p.reject(new Error("the host's output ended; stderr:\n" + this.peer.stderr));
      this.pending.clear();
    };
  }

  frame(body) {
    const m = decode(body);
    if (m.t === "tool.call") {
      // Answer inline: check the tool, echo its input (§5.3).
      if (m.name !== "echo" || (m.namespace && m.namespace !== "functions")) {
        this.peer.write(frame({ t: "tool.result", id: m.id, error: { code: "unknown_tool", message: `no tool ${m.name}` } }));
        return;
      }
      const input = fromJSONBin(m.input);
      this.peer.write(frame({ t: "tool.result", id: m.id, value: jsonBin(input) }));
      return;
    }
    if (m.t === "exec.started" || m.t === "cell.closed" || m.id === undefined) return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.t === "error") p.reject(new Error(`${m.failed_t}: ${m.code}: ${m.message}`));
    else p.resolve(m);
  }

  request(msg) {
    const id = this.nextID++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${msg.t} within 60s; stderr:\n${this.peer.stderr}`)), 60000);
      this.pending.set(id, {
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.peer.write(frame({ ...msg, id }));
    });
  }

  async start() {
    const ok = await this.request({ t: "hello", versions: [1], client: "codemode-bench-node/1" });
    if (ok.t !== "hello.ok") fail("handshake: " + JSON.stringify(ok));
    const opened = await this.request({ t: "session.open", session: "bench" });
    if (opened.t !== "session.opened") fail("session.open: " + JSON.stringify(opened));
  }

  // run runs source to its end and returns [result value, stats, parent ms].
  async run(source) {
    const t0 = performance.now();
    const res = await this.request({ t: "exec", session: "bench", source, tools: echoTool, yield_ms: 60000 });
    const ms = performance.now() - t0;
    if (res.status !== "completed") fail(`cell ${res.status}: ${JSON.stringify(res.error)}`);
    const items = res.items || [];
    return [JSON.parse(items[items.length - 1].text), res.stats, ms];
  }
}

// The sizes of the frames one echo call moves, as this parent and the
// host encode them (the host's tool.call carries session, cell and call).
const sampleCall = { t: "tool.call", id: 123456, session: "bench", cell: "c12", call: 500, name: "echo", kind: "function", input: jsonBin({ i: 500 }) };
const sampleResult = { t: "tool.result", id: 123456, value: jsonBin({ i: 500 }) };
const callFrame = frame(sampleCall);
const resultFrame = frame(sampleResult);

// floorRound times n round trips with the Go echo child: one frame of a
// tool.result's size out, one of a tool.call's size back, each awaited.
function floorRound(peer, n) {
  return new Promise((resolve) => {
    let left = n;
    const t0 = performance.now();
    peer.onFrame = () => {
      if (--left === 0) resolve(((performance.now() - t0) * 1000) / n);
      else peer.write(resultFrame);
    };
    peer.write(resultFrame);
  });
}

// codecRound times n iterations of this parent's own work for one call:
// decode a tool.call body and its JSON input, encode the tool.result frame.
function codecRound(n) {
  const body = callFrame.subarray(4);
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const m = decode(body);
    const input = fromJSONBin(m.input);
    sink += frame({ t: "tool.result", id: m.id, value: jsonBin(input) }).length;
  }
  const us = ((performance.now() - t0) * 1000) / n;
  if (sink === 0) fail("codec produced nothing");
  return us;
}

const out = { n: opt.n, rounds: opt.rounds, write: opt.write, frame_bytes: { tool_call: callFrame.length, tool_result: resultFrame.length }, floor_us: [], codec_us: [], host_cell_us: [], host_stats_us: [], host_parent_us: [] };

try {
  let floor = null;
  if (opt.floorCmd) {
    floor = new Peer(opt.floorCmd, opt.floorArgs, {}, "the floor child");
    await floorRound(floor, 200); // warm up
  }
  const host = new Host(opt.host);
  await host.start();
  // Warm up: the pool's isolates, V8's compiler, both sides' code paths.
  for (let i = 0; i < 3; i++) await host.run(seqSource(Math.min(opt.n, 200)));
  codecRound(opt.n);

  for (let r = 0; r < opt.rounds; r++) {
    if (floor) out.floor_us.push(await floorRound(floor, opt.n));
    out.codec_us.push(codecRound(opt.n));
    const [, , trivialMs] = await host.run(trivialSource);
    const [val, stats, ms] = await host.run(seqSource(opt.n));
    if (val.s !== (opt.n * (opt.n - 1)) / 2) fail(`the cell summed ${val.s}`);
    out.host_cell_us.push((val.ms * 1000) / opt.n);
    out.host_stats_us.push((stats.wall_ms * 1000) / opt.n);
    out.host_parent_us.push(((ms - trivialMs) * 1000) / opt.n);
  }
  const code = await host.peer.close();
  if (code !== 0) fail(`the host exited with ${code}; stderr:\n${host.peer.stderr}`);
  if (floor) {
    const fcode = await floor.close();
    if (fcode !== 0) fail(`the floor child exited with ${fcode}; stderr:\n${floor.stderr}`);
  }
  console.log(JSON.stringify(out));
  process.exit(0);
} catch (e) {
  fail(e.stack || e.message);
}
