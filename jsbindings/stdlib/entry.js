'use strict';
// The first part of stdlib.js, run in every context before the prelude:
// stubs for the standard library V8 10.9 lacks, which load the real
// modules (parts.js, bundled from the pinned core-js in node_modules) on
// first use. `go run ./jsbindings/internal/genstdlib` (make stdlib) builds
// stdlib.js with esbuild; a test checks the committed file is what it
// builds. loadParts() is defined around this file by the build: it runs
// the bundled parts.js once and returns its loaders.

const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ReflectApply = Reflect.apply;

// Everything loads on first use, as Node loads most of its web globals: a
// context pays only for a few stubs until the script touches the library
// (running all of core-js's set-up costs several times a fresh context).
//
// lazyGroup defines globals as accessors and methods (target, key,
// length) as stubs with the real name and length; the first read of one
// of the globals or call of one of the stubs removes them all and runs
// load, which installs the real ones. A global or method the script has
// replaced meanwhile keeps the script's value. lazyGroup returns a getter
// of the value load gave each global, whatever the script does later.
function lazyGroup(globals, methods, load) {
  let values = null;
  const getters = { __proto__: null };
  const stubs = [];
  function loaded() {
    if (values !== null) return values;
    values = { __proto__: null };
    const kept = [];
    for (let i = 0; i < globals.length; i++) {
      const name = globals[i];
      const d = getOwnPropertyDescriptor(globalThis, name);
      if (d !== undefined && d.get !== getters[name]) kept.push([name, d]);
      delete globalThis[name];
    }
    for (let i = 0; i < stubs.length; i += 3) {
      const d = getOwnPropertyDescriptor(stubs[i], stubs[i + 1]);
      if (d !== undefined && d.value === stubs[i + 2]) delete stubs[i][stubs[i + 1]];
    }
    // core-js's set-up, on the first load, replaces
    // Function.prototype.toString (to print its polyfills as native code)
    // and keeps its state in a global; its modules hold their own
    // reference to that state, so the name can go.
    const toString = getOwnPropertyDescriptor(Function.prototype, 'toString');
    load();
    defineProperty(Function.prototype, 'toString', toString);
    delete globalThis['__core-js_shared__'];
    for (let i = 0; i < globals.length; i++) values[globals[i]] = globalThis[globals[i]];
    for (let i = 0; i < kept.length; i++) defineProperty(globalThis, kept[i][0], kept[i][1]);
    return values;
  }
  for (let i = 0; i < globals.length; i++) {
    const name = globals[i];
    getters[name] = getOwnPropertyDescriptor({ get [name]() { return loaded()[name]; } }, name).get;
    defineProperty(globalThis, name, {
      get: getters[name],
      set(v) { defineProperty(globalThis, name, { value: v, writable: true, enumerable: false, configurable: true }); },
      enumerable: false,
      configurable: true,
    });
  }
  // methods is flat, [target, key, length, ...]: this runs in every
  // context, so it allocates little.
  const meta = { value: undefined, configurable: true };
  const slot = { value: undefined, writable: true, enumerable: false, configurable: true };
  for (let i = 0; i < methods.length; i += 3) {
    const target = methods[i];
    const key = methods[i + 1];
    const stub = function () { loaded(); return ReflectApply(target[key], this, arguments); };
    meta.value = key;
    defineProperty(stub, 'name', meta);
    meta.value = methods[i + 2];
    defineProperty(stub, 'length', meta);
    slot.value = stub;
    defineProperty(target, key, slot);
    stubs.push(target, key, stub);
  }
  return (name) => loaded()[name];
}

const ArrayProto = Array.prototype;
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const IteratorProto = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
const unscopables = ArrayProto[Symbol.unscopables];
unscopables.toReversed = true;
unscopables.toSorted = true;
unscopables.toSpliced = true;
lazyGroup([], [
  ArrayProto, 'toReversed', 0, ArrayProto, 'toSorted', 1, ArrayProto, 'toSpliced', 2, ArrayProto, 'with', 2,
], () => loadParts().arrays());
lazyGroup([], [
  TypedArrayProto, 'toReversed', 0, TypedArrayProto, 'toSorted', 1, TypedArrayProto, 'with', 2,
], () => loadParts().typedArrays());
lazyGroup([], [
  Object, 'groupBy', 2, Map, 'groupBy', 2, Promise, 'withResolvers', 0, Promise, 'try', 1,
  String.prototype, 'isWellFormed', 0, String.prototype, 'toWellFormed', 0,
  RegExp, 'escape', 1, Array, 'fromAsync', 1, Error, 'isError', 1, Math, 'sumPrecise', 1,
  Map.prototype, 'getOrInsert', 2, Map.prototype, 'getOrInsertComputed', 2,
  WeakMap.prototype, 'getOrInsert', 2, WeakMap.prototype, 'getOrInsertComputed', 2,
], () => loadParts().misc());
lazyGroup([], [
  Set.prototype, 'union', 1, Set.prototype, 'intersection', 1, Set.prototype, 'difference', 1,
  Set.prototype, 'symmetricDifference', 1, Set.prototype, 'isSubsetOf', 1, Set.prototype, 'isSupersetOf', 1,
  Set.prototype, 'isDisjointFrom', 1,
], () => loadParts().sets());
lazyGroup(['Iterator'], [
  IteratorProto, 'drop', 1, IteratorProto, 'every', 1, IteratorProto, 'filter', 1, IteratorProto, 'find', 1,
  IteratorProto, 'flatMap', 1, IteratorProto, 'forEach', 1, IteratorProto, 'map', 1, IteratorProto, 'reduce', 1,
  IteratorProto, 'some', 1, IteratorProto, 'take', 1, IteratorProto, 'toArray', 0,
], () => loadParts().iterators());
lazyGroup([], [
  Uint8Array, 'fromBase64', 1, Uint8Array, 'fromHex', 1, Uint8Array.prototype, 'setFromBase64', 1,
  Uint8Array.prototype, 'setFromHex', 1, Uint8Array.prototype, 'toBase64', 0, Uint8Array.prototype, 'toHex', 0,
], () => loadParts().uint8Arrays());

// Web platform (WHATWG / WebIDL) and TextEncoder/TextDecoder.
const domException = lazyGroup(['DOMException'], [], () => loadParts().domException());
lazyGroup(['atob', 'btoa'], [], () => loadParts().base64());
lazyGroup(['structuredClone'], [], () => loadParts().structuredClone());
lazyGroup(['URL', 'URLSearchParams'], [], () => loadParts().url());
lazyGroup(['TextEncoder', 'TextDecoder'], [], () => loadParts().text());

// The prelude takes the real DOMException from here (and deletes the name).
defineProperty(globalThis, '__cm_dom_exception', { value: () => domException('DOMException'), configurable: true });

