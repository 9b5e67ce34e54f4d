'use strict';
// The standard library's modules, by group: entry.js runs a group's
// loader the first time the script uses one of its globals or methods
// (the first load of all also runs core-js's shared set-up).
// Bundled (with everything they require) into the function stdlib.js
// calls on the first load, so a context that never uses them does not
// even create their module wrappers.
//
// Only modules that add what V8 10.9 lacks: each adds a missing global or
// method and replaces nothing V8 has (a test checks). Left out on purpose:
//  - es.array.push, es.json.parse/stringify/raw-json/is-raw-json,
//    es.regexp.flags, es.symbol: core-js would replace V8's own (working)
//    versions with slower JS ones, which the prelude also captures;
//  - explicit resource management (DisposableStack, SuppressedError,
//    Symbol.dispose, ...): V8 10.9 cannot parse `using`;
//  - ArrayBuffer transfer/detached: nothing can detach a buffer here;
//  - Float16 (Math.f16round, DataView get/setFloat16): no Float16Array;
//  - web timers, setImmediate, queueMicrotask, self: the prelude has its
//    own timers on the cell's event loop.
module.exports = {
  // ES2023
  arrays() {
    require('core-js/modules/es.array.to-reversed');
    require('core-js/modules/es.array.to-sorted');
    require('core-js/modules/es.array.to-spliced');
    require('core-js/modules/es.array.with');
  },
  typedArrays() {
    require('core-js/modules/es.typed-array.to-reversed');
    require('core-js/modules/es.typed-array.to-sorted');
    require('core-js/modules/es.typed-array.with');
  },
  // ES2024 and the statics and small methods of ES2025-ES2026.
  misc() {
    require('core-js/modules/es.object.group-by');
    require('core-js/modules/es.map.group-by');
    require('core-js/modules/es.promise.with-resolvers');
    require('core-js/modules/es.promise.try');
    require('core-js/modules/es.string.is-well-formed');
    require('core-js/modules/es.string.to-well-formed');
    require('core-js/modules/es.regexp.escape');
    require('core-js/modules/es.array.from-async');
    require('core-js/modules/es.error.is-error');
    require('core-js/modules/es.math.sum-precise');
    require('core-js/modules/es.map.get-or-insert');
    require('core-js/modules/es.map.get-or-insert-computed');
    require('core-js/modules/es.weak-map.get-or-insert');
    require('core-js/modules/es.weak-map.get-or-insert-computed');
  },
  // ES2025
  sets() {
    require('core-js/modules/es.set.union.v2');
    require('core-js/modules/es.set.intersection.v2');
    require('core-js/modules/es.set.difference.v2');
    require('core-js/modules/es.set.symmetric-difference.v2');
    require('core-js/modules/es.set.is-subset-of.v2');
    require('core-js/modules/es.set.is-superset-of.v2');
    require('core-js/modules/es.set.is-disjoint-from.v2');
  },
  iterators() {
    require('core-js/modules/es.iterator.constructor');
    require('core-js/modules/es.iterator.from');
    require('core-js/modules/es.iterator.concat');
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
  },
  // ES2026
  uint8Arrays() {
    require('core-js/modules/es.uint8-array.from-base64');
    require('core-js/modules/es.uint8-array.from-hex');
    require('core-js/modules/es.uint8-array.set-from-base64');
    require('core-js/modules/es.uint8-array.set-from-hex');
    require('core-js/modules/es.uint8-array.to-base64');
    require('core-js/modules/es.uint8-array.to-hex');
  },
  // Web platform (WHATWG / WebIDL).
  domException() {
    require('core-js/modules/web.dom-exception.constructor');
    require('core-js/modules/web.dom-exception.stack');
    require('core-js/modules/web.dom-exception.to-string-tag');
  },
  base64() {
    require('core-js/modules/web.atob');
    require('core-js/modules/web.btoa');
  },
  structuredClone() {
    require('core-js/modules/web.structured-clone');
  },
  url() {
    require('core-js/modules/web.url.constructor');
    require('core-js/modules/web.url.can-parse');
    require('core-js/modules/web.url.parse');
    require('core-js/modules/web.url.to-json');
    require('core-js/modules/web.url-search-params.constructor');
    require('core-js/modules/web.url-search-params.delete');
    require('core-js/modules/web.url-search-params.has');
    require('core-js/modules/web.url-search-params.size');
    // WebIDL makes static operations enumerable, as Node's are.
    for (const key of ['canParse', 'parse']) Object.defineProperty(globalThis.URL, key, { enumerable: true });
  },
  // Ours: see textcodec.js.
  text() {
    require('./textcodec.js');
  },
};
