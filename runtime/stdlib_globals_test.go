package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

func runStdlib(t *testing.T, rt *Runtime, src string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := rt.Run(ctx, CellRequest{Source: src})
	require.NoError(t, err)
	return res
}

// TestStdlibPendingIntervalDoesNotKeepTheCellAlive: like a timeout, an
// interval still armed when the script's top level settles is dropped.
func TestStdlibPendingIntervalDoesNotKeepTheCellAlive(t *testing.T) {
	rt := New(Config{})
	t.Cleanup(rt.Close)
	res := runStdlib(t, rt, `setInterval(() => text("tick"), 60000); setInterval(() => {}, 0); return "done"`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"done"}, texts(res))
}

// TestStdlibIntervalCallbackErrorFailsTheCell: an exception in an
// interval's callback fails the cell, as one in a timeout's does.
func TestStdlibIntervalCallbackErrorFailsTheCell(t *testing.T) {
	rt := New(Config{})
	t.Cleanup(rt.Close)
	res := runStdlib(t, rt, `let n = 0; setInterval(() => { if (++n === 2) throw new RangeError("second tick"); }, 1);
await new Promise(() => {});`)
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "RangeError", res.Error.Name)
	assert.Equal(t, "second tick", res.Error.Message)

	res = runStdlib(t, rt, `setInterval("code", 1)`)
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "TypeError", res.Error.Name)
	assert.Contains(t, res.Error.Message, "setInterval expects a function")
}

// TestStdlibHostBackedGlobalsIgnoreTheScriptsReplacements: crypto and
// performance use the built-ins captured before the script ran, and
// throw the real DOMException, whatever the script replaced.
func TestStdlibHostBackedGlobalsIgnoreTheScriptsReplacements(t *testing.T) {
	rt := New(Config{})
	t.Cleanup(rt.Close)
	res := runStdlib(t, rt, `
const u32 = new Uint32Array(4);
const TA = Object.getPrototypeOf(Uint8Array.prototype);
Object.defineProperty(TA, "byteLength", { get() { return 1e9; } });
Object.defineProperty(TA, Symbol.toStringTag, { get() { return "Uint8Array"; } });
ArrayBuffer.isView = () => true;
globalThis.Uint8Array = function () { throw new Error("fake"); };
globalThis.DOMException = function () { this.name = "fake"; };
const out = [crypto.getRandomValues(u32) === u32, u32.some((x) => x !== 0)];
for (const bad of [new Float64Array(1), {}]) {
  try { crypto.getRandomValues(bad); } catch (e) { out.push(e.name + (e instanceof Error ? "" : " not an Error")); }
}
out.push(crypto.randomUUID().length, typeof performance.now());
return out;`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`[true,true,"TypeMismatchError","TypeError",36,"number"]`}, texts(res))
}

// TestStdlibLazyGlobals: the web globals load on first use; one the
// script assigns first keeps the script's value, and its partners still
// load.
func TestStdlibLazyGlobals(t *testing.T) {
	rt := New(Config{})
	t.Cleanup(rt.Close)
	res := runStdlib(t, rt, `
URL = 5;
const p = new URLSearchParams("a=1");
const d = Object.getOwnPropertyDescriptor(globalThis, "URLSearchParams");
return [URL, p.get("a"), "value" in d, d.enumerable, delete globalThis.atob, typeof atob, typeof structuredClone(new Map())];`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`[5,"1",true,false,true,"undefined","object"]`}, texts(res))
}

// TestStdlibUncaughtDOMException: a DOMException nothing catches fails
// the cell with its name and message.
func TestStdlibUncaughtDOMException(t *testing.T) {
	rt := New(Config{})
	t.Cleanup(rt.Close)
	res := runStdlib(t, rt, `atob("*")`)
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "InvalidCharacterError", res.Error.Name)
	assert.NotEmpty(t, res.Error.Message)
}

// TestStdlibStubsBecomeTheRealMethods: until the script first uses the
// standard library its methods are stubs; a stub works, and after the
// load every stub has become the real method, with the stub's name and
// length, and no built-in V8 has was replaced.
func TestStdlibStubsBecomeTheRealMethods(t *testing.T) {
	rt := New(Config{})
	t.Cleanup(rt.Close)
	res := runStdlib(t, rt, `
const IP = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
const TA = Object.getPrototypeOf(Uint8Array.prototype);
const targets = [Array, Array.prototype, TA, Object, Map, Map.prototype, Promise, String.prototype, Set.prototype, IP, RegExp,
  Error, Math, WeakMap, WeakMap.prototype, Uint8Array, Uint8Array.prototype, Function.prototype, JSON, Symbol];
const before = [];
for (const t of targets) for (const k of Reflect.ownKeys(t)) {
  const d = Object.getOwnPropertyDescriptor(t, k);
  if (typeof d.value === "function") before.push([t, k, d.value]);
}
const early = [3, 1, 2].toSorted();
const toString = Function.prototype.toString;
void [new Int8Array(1).toSorted(), Object.groupBy([], String), new Set().union(new Set()), Iterator, new Uint8Array(1).toHex()];
const changed = [];
const wrong = [];
for (const [t, k, f] of before) {
  const d = Object.getOwnPropertyDescriptor(t, k);
  if (d.value === f) continue;
  changed.push(String(k));
  if (d.value.name !== f.name || d.value.length !== f.length || !d.writable || d.enumerable || !d.configurable) wrong.push(String(k));
}
return [early, changed.length, wrong, Function.prototype.toString === toString, typeof Iterator.from];`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`[[1,2,3],45,[],true,"function"]`}, texts(res))
}
