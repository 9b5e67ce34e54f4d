// peer.mjs measures the peer make bench compares codemode-host with:
// @utcp/code-mode's CodeModeUtcpClient.callToolChain (a new isolated-vm
// isolate per call, tools called synchronously through applySyncPromise).
//
// The echo tool runs in this Node process, with no IPC: an "inproc"
// communication protocol is registered through the SDK's plugin points
// (CallTemplateSerializer.registerCallTemplate and
// CommunicationProtocol.communicationProtocols, the way the SDK's own
// protocol plugins register), a manual is registered with the client, and
// every call goes through the client's real path: callToolChain → the
// isolate's bridge → UtcpClient.callTool (repository look-up, allowed-protocol
// check, variable substitution, post-processors) → InProcProtocol.callTool.
//
// Usage: node peer.mjs [--n N] [--warmup W] [--only a,b]
// Prints one JSON object to stdout: {scenario: {p50_ms, p99_ms, n,
// samples_ms}}, samples_ms holding every measured run in order.
// The SDK logs every tool call with console.log; console is sent to stderr
// so stdout carries only the result.
import { Console } from 'node:console';
import { parseArgs } from 'node:util';
import { CallTemplateSerializer, CommunicationProtocol } from '@utcp/sdk';
import { CodeModeUtcpClient } from '@utcp/code-mode';

globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

const PROTOCOL = 'inproc';
const MANUAL = 'bench';

// Scenarios, named as in the Go harness. The code is the body of an async
// function; the peer's tool functions are synchronous, `await` also works.
const SCENARIOS = {
  trivial: 'return 1',
  seq100: `
    let n = 0;
    for (let i = 0; i < 100; i++) { const r = await bench.echo({ i }); n += r.i; }
    return n;`,
  all1000: `
    const ps = [];
    for (let i = 0; i < 1000; i++) ps.push(bench.echo({ i }));
    const rs = await Promise.all(ps);
    return rs.length;`,
  fib27: `
    function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    return fib(27);`,
};

// Checks each scenario's result so a broken run can't pass as a fast one.
const EXPECT = { trivial: 1, seq100: 4950, all1000: 1000, fib27: 196418 };

class InProcCallTemplateSerializer {
  toDict(obj) {
    return { ...obj };
  }
  validateDict(obj) {
    if (obj.call_template_type !== PROTOCOL) {
      throw new Error(`inproc: call_template_type is ${obj.call_template_type}`);
    }
    return { ...obj };
  }
  copy(obj) {
    return this.validateDict(this.toDict(obj));
  }
}

// InProcProtocol serves the manual's tools from handlers in this process.
class InProcProtocol extends CommunicationProtocol {
  constructor(handlers) {
    super();
    this.handlers = handlers;
  }
  async registerManual(_caller, manualCallTemplate) {
    const tools = Object.keys(this.handlers).map((name) => ({
      name,
      description: `In-process ${name} tool`,
      inputs: { type: 'object', properties: { i: { type: 'number' } } },
      outputs: { type: 'object', properties: { i: { type: 'number' } } },
      tags: ['bench'],
      tool_call_template: { name: manualCallTemplate.name, call_template_type: PROTOCOL },
    }));
    return {
      manualCallTemplate,
      manual: { utcp_version: '1.0.0', manual_version: '1.0.0', tools },
      success: true,
      errors: [],
    };
  }
  async deregisterManual() {}
  async callTool(_caller, toolName, toolArgs) {
    const handler = this.handlers[toolName.slice(toolName.indexOf('.') + 1)];
    if (!handler) throw new Error(`inproc: no tool ${toolName}`);
    return handler(toolArgs);
  }
  async *callToolStreaming(caller, toolName, toolArgs, template) {
    yield await this.callTool(caller, toolName, toolArgs, template);
  }
}

async function newClient() {
  CallTemplateSerializer.registerCallTemplate(PROTOCOL, new InProcCallTemplateSerializer(), true);
  CommunicationProtocol.communicationProtocols[PROTOCOL] = new InProcProtocol({ echo: (args) => args });
  const client = await CodeModeUtcpClient.create(process.cwd(), null);
  const reg = await client.registerManual({ name: MANUAL, call_template_type: PROTOCOL });
  if (!reg.success) throw new Error(`registering the manual: ${reg.errors.join(', ')}`);
  return client;
}

async function runOnce(client, name) {
  const { result, logs } = await client.callToolChain(SCENARIOS[name]);
  if (result !== EXPECT[name]) {
    throw new Error(`${name}: got ${JSON.stringify(result)}, want ${EXPECT[name]}; logs: ${logs.join(' | ')}`);
  }
}

function percentile(sorted, p) {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

async function measure(client, name, n, warmup) {
  for (let i = 0; i < warmup; i++) await runOnce(client, name);
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await runOnce(client, name);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50_ms: percentile(sorted, 50), p99_ms: percentile(sorted, 99), n, samples_ms: ms };
}

async function main() {
  const { values } = parseArgs({
    options: {
      n: { type: 'string', default: '50' },
      warmup: { type: 'string', default: '5' },
      only: { type: 'string', default: Object.keys(SCENARIOS).join(',') },
    },
  });
  const n = Number(values.n);
  const warmup = Number(values.warmup);
  if (!(n > 0) || !(warmup >= 0)) throw new Error('--n must be > 0 and --warmup >= 0');
  const client = await newClient();
  const out = {};
  for (const name of values.only.split(',')) {
    if (!(name in SCENARIOS)) throw new Error(`unknown scenario ${name}`);
    out[name] = await measure(client, name, n, warmup);
  }
  await client.close?.();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write(`peer: ${err.stack || err}\n`);
  process.exit(1);
});
