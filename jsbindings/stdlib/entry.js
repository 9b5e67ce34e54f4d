'use strict';
// The entry of stdlib.js: the standard library V8 10.9 lacks, run in every
// context before the prelude. `go run ./jsbindings/internal/genstdlib`
// (make stdlib) bundles it with esbuild from the pinned core-js in
// node_modules; a test checks the committed bundle is what this builds.
//
// Only modules that add what V8 10.9 lacks: each adds a missing global or
// method and replaces nothing V8 has. Left out on purpose:
//  - es.array.push, es.json.parse/stringify/raw-json/is-raw-json,
//    es.regexp.flags, es.symbol: core-js would replace V8's own (working)
//    versions with slower JS ones, which the prelude also captures;
//  - explicit resource management (DisposableStack, SuppressedError,
//    Symbol.dispose, ...): V8 10.9 cannot parse `using`;
//  - ArrayBuffer transfer/detached: nothing can detach a buffer here;
//  - Float16 (Math.f16round, DataView get/setFloat16): no Float16Array;
//  - web timers, setImmediate, queueMicrotask, self: the prelude has its
//    own timers on the cell's event loop.

// core-js replaces Function.prototype.toString to print its polyfills as
// native code; V8's own is put back below.
const functionToString = Function.prototype.toString;

// ES2023
require('core-js/modules/es.array.to-reversed');
require('core-js/modules/es.array.to-sorted');
require('core-js/modules/es.array.to-spliced');
require('core-js/modules/es.array.with');
require('core-js/modules/es.typed-array.to-reversed');
require('core-js/modules/es.typed-array.to-sorted');
require('core-js/modules/es.typed-array.with');
// ES2024
require('core-js/modules/es.object.group-by');
require('core-js/modules/es.map.group-by');
require('core-js/modules/es.promise.with-resolvers');
require('core-js/modules/es.string.is-well-formed');
require('core-js/modules/es.string.to-well-formed');
// ES2025
require('core-js/modules/es.set.union.v2');
require('core-js/modules/es.set.intersection.v2');
require('core-js/modules/es.set.difference.v2');
require('core-js/modules/es.set.symmetric-difference.v2');
require('core-js/modules/es.set.is-subset-of.v2');
require('core-js/modules/es.set.is-superset-of.v2');
require('core-js/modules/es.set.is-disjoint-from.v2');
require('core-js/modules/es.iterator.constructor');
require('core-js/modules/es.iterator.from');
require('core-js/modules/es.iterator.drop');
require('core-js/modules/es.iterator.every');
require('core-js/modules/es.iterator.filter');
require('core-js/modules/es.iterator.find');
require('core-js/modules/es.iterator.flat-map');
require('core-js/modules/es.iterator.for-each');
require('core-js/modules/es.iterator.map');
require('core-js/modules/es.iterator.reduce');
require('core-js/modules/es.iterator.some');
require('core-js/modules/es.iterator.take');
require('core-js/modules/es.iterator.to-array');
require('core-js/modules/es.promise.try');
require('core-js/modules/es.regexp.escape');
// ES2026
require('core-js/modules/es.array.from-async');
require('core-js/modules/es.error.is-error');
require('core-js/modules/es.iterator.concat');
require('core-js/modules/es.math.sum-precise');
require('core-js/modules/es.map.get-or-insert');
require('core-js/modules/es.map.get-or-insert-computed');
require('core-js/modules/es.weak-map.get-or-insert');
require('core-js/modules/es.weak-map.get-or-insert-computed');
require('core-js/modules/es.uint8-array.from-base64');
require('core-js/modules/es.uint8-array.from-hex');
require('core-js/modules/es.uint8-array.set-from-base64');
require('core-js/modules/es.uint8-array.set-from-hex');
require('core-js/modules/es.uint8-array.to-base64');
require('core-js/modules/es.uint8-array.to-hex');
// Web platform (WHATWG / WebIDL) and TextEncoder/TextDecoder: loaded on
// first use, as Node loads most of these, so a context that never touches
// them does not pay for them (about half of the bundle's start-up).
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
function lazyGlobals(names, load) {
  let values = null;
  // loaded runs load once and returns the values it made, by name. A
  // global the script has replaced meanwhile keeps the script's value.
  function loaded() {
    if (values !== null) return values;
    const kept = [];
    for (const name of names) {
      const d = getOwnPropertyDescriptor(globalThis, name);
      if (d !== undefined && d.get !== getters[name]) kept.push([name, d]);
      delete globalThis[name];
    }
    load();
    values = { __proto__: null };
    for (const name of names) {
      values[name] = globalThis[name];
      defineProperty(globalThis, name, { value: values[name], writable: true, enumerable: false, configurable: true });
    }
    for (const [name, d] of kept) defineProperty(globalThis, name, d);
    return values;
  }
  const getters = { __proto__: null };
  for (const name of names) {
    const get = { get [name]() { return loaded()[name]; } };
    getters[name] = getOwnPropertyDescriptor(get, name).get;
    defineProperty(globalThis, name, {
      get: getters[name],
      set(v) { defineProperty(globalThis, name, { value: v, writable: true, enumerable: false, configurable: true }); },
      enumerable: false,
      configurable: true,
    });
  }
}
lazyGlobals(['DOMException'], () => {
  require('core-js/modules/web.dom-exception.constructor');
  require('core-js/modules/web.dom-exception.stack');
  require('core-js/modules/web.dom-exception.to-string-tag');
});
lazyGlobals(['atob', 'btoa'], () => {
  require('core-js/modules/web.atob');
  require('core-js/modules/web.btoa');
});
lazyGlobals(['structuredClone'], () => {
  require('core-js/modules/web.structured-clone');
});
lazyGlobals(['URL', 'URLSearchParams'], () => {
  require('core-js/modules/web.url.constructor');
  require('core-js/modules/web.url.can-parse');
  require('core-js/modules/web.url.parse');
  require('core-js/modules/web.url.to-json');
  require('core-js/modules/web.url-search-params.constructor');
  require('core-js/modules/web.url-search-params.delete');
  require('core-js/modules/web.url-search-params.has');
  require('core-js/modules/web.url-search-params.size');
});
lazyGlobals(['TextEncoder', 'TextDecoder'], () => {
  require('./textcodec.js');
});

Object.defineProperty(Function.prototype, 'toString', { value: functionToString, writable: true, enumerable: false, configurable: true });
// core-js keeps its state in a global; its modules hold their own
// reference, so the name can go.
delete globalThis['__core-js_shared__'];
