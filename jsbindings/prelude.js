// The script's global scope, installed into every fresh context before the
// user's source runs. It captures the raw host functions (__cm_*) and the
// built-ins it relies on, deletes what scripts must not see, and returns the
// internal object the Go side drives (install, fireTimer, describe, ...).
// Everything here is strict code: V8 hides strict frames' functions and
// receivers from a script's Error.prepareStackTrace and from .caller.
//
// Host functions (Go, loop goroutine); every string they take is made
// well-formed UTF-8 where it crosses:
//   __cm_call(toolIndex, inputJSON) -> Promise (resolves with the parsed
//       result; rejects with {code, message})
//   __cm_out(type, level, text, detail)
//   __cm_timer(id, delayMs)   delayMs < 0 clears
//   __cm_exit()
//   __cm_unhandled(count)
//   __cm_notify(text)
//   __cm_yield()
//   __cm_search(query, limit) -> array of tool indexes, best first
//   __cm_store(key, jsonText)   records a write; throws when refused
//   __cm_random(n) -> string of n code units 0-255 from crypto/rand
//       (n <= MaxRandomBytes)
//   __cm_now() -> milliseconds since the cell started (monotonic)
//   __cm_stopped() -> bool   whether the cell was stopped
//   __cm_adopt_reject() -> bool   moves the __codemode_reject__ global out
//       of the script's reach (see internal/v8shim)
//
// Text is bounded before it crosses (limits arrive with install; see
// ScriptLimits in bindings.go): output and the return value at the cell's
// output limit, a notification at NotifyTextBytes and an error's name,
// message and stack at ErrorTextBytes, each cut in the middle with a note
// where the cut is; a larger image or store write, or a longer search
// query, is a RangeError.
//
// The standard library (stdlib/stdlib.js: core-js and TextEncoder/
// TextDecoder) has run before this: it leaves __cm_dom_exception() -> the
// real DOMException.
(function () {
  'use strict';
  const g = globalThis;
  const hostCall = g.__cm_call;
  const hostOut = g.__cm_out;
  const hostTimer = g.__cm_timer;
  const hostExit = g.__cm_exit;
  const hostUnhandled = g.__cm_unhandled;
  const hostNotify = g.__cm_notify;
  const hostYield = g.__cm_yield;
  const hostSearch = g.__cm_search;
  const hostStore = g.__cm_store;
  const hostStopped = g.__cm_stopped;
  const hostAdoptReject = g.__cm_adopt_reject;
  const hostRandom = g.__cm_random;
  const hostNow = g.__cm_now;
  const realDOMException = g.__cm_dom_exception;
  for (const k of ['__cm_call', '__cm_out', '__cm_timer', '__cm_exit', '__cm_unhandled',
    '__cm_notify', '__cm_yield', '__cm_search', '__cm_store', '__cm_stopped', '__cm_adopt_reject',
    '__cm_random', '__cm_now', '__cm_dom_exception', 'Atomics', 'SharedArrayBuffer', 'WebAssembly']) {
    delete g[k];
  }

  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const regexpTest = RegExp.prototype.test;
  const stringTrim = String.prototype.trim;
  const stringToLower = String.prototype.toLowerCase;
  const stringSlice = String.prototype.slice;
  const charCodeAt = String.prototype.charCodeAt;
  const stringIndexOf = String.prototype.indexOf;
  const stringReplaceAll = String.prototype.replaceAll;
  const numberParseInt = Number.parseInt;
  const numberParseFloat = Number.parseFloat;
  const objectCreate = Object.create;
  const objectToString = Object.prototype.toString;
  const RangeErrorCtor = RangeError;
  const objectKeys = Object.keys;
  const hasOwn = Object.prototype.hasOwnProperty;
  const ReflectApply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const isArray = Array.isArray;
  const StringCtor = String;
  const NumberCtor = Number;
  const isFiniteNumber = Number.isFinite;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const mapHas = Map.prototype.has;
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;
  const mapEntries = Map.prototype.entries;
  const mapForEach = Map.prototype.forEach;
  const arrayIncludes = Array.prototype.includes;
  const arrayPush = Array.prototype.push;
  const arrayPop = Array.prototype.pop;
  const arrayJoin = Array.prototype.join;
  const arrayFrom = Array.from;
  const fromEntries = Object.fromEntries;
  const symbolToString = Symbol.prototype.toString;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseThen = Promise.prototype.then;
  const SetCtor = Set;
  const MapProto = Map.prototype;
  const SetProto = Set.prototype;
  const getPrototypeOf = Object.getPrototypeOf;
  // The standard library loads DOMException on first use; realDOMException
  // returns the real one whatever the script assigns to the global.
  function domException(message, name) {
    const DOMExceptionCtor = realDOMException();
    return new DOMExceptionCtor(message, name);
  }
  const Uint8ArrayCtor = Uint8Array;
  const isView = ArrayBuffer.isView;
  const TypedArrayProto = getPrototypeOf(Uint8Array.prototype);
  const typedArrayGetter = (k) => Object.getOwnPropertyDescriptor(TypedArrayProto, k).get;
  const typedArrayTag = typedArrayGetter(Symbol.toStringTag);
  const typedArrayBuffer = typedArrayGetter('buffer');
  const typedArrayOffset = typedArrayGetter('byteOffset');
  const typedArrayByteLength = typedArrayGetter('byteLength');
  const dateNow = Date.now;

  // Limits from install (Go's ScriptLimits); until then nothing is cut.
  let limits = { __proto__: null, outputBytes: Infinity, storeBytes: Infinity, notifyBytes: Infinity,
    errorBytes: Infinity, searchQueryChars: Infinity, searchLimit: 0x7fffffff, randomBytes: Infinity };

  function codeAt(s, i) {
    return ReflectApply(charCodeAt, s, [i]);
  }

  // headUnits is how many code units from the start of s fit in max bytes
  // of UTF-8, never ending inside a surrogate pair (a lone surrogate counts
  // 3, the U+FFFD it becomes).
  function headUnits(s, max) {
    const n = s.length;
    let bytes = 0;
    let i = 0;
    while (i < n) {
      const c = codeAt(s, i);
      let b = 1;
      let w = 1;
      if (c >= 0x80) {
        b = c < 0x800 ? 2 : 3;
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n) {
          const d = codeAt(s, i + 1);
          if (d >= 0xDC00 && d <= 0xDFFF) { b = 4; w = 2; }
        }
      }
      if (bytes + b > max) break;
      bytes += b;
      i += w;
    }
    return i;
  }

  // tailUnits is how many code units from the end of s fit in max bytes.
  function tailUnits(s, max) {
    let bytes = 0;
    let i = s.length;
    while (i > 0) {
      const c = codeAt(s, i - 1);
      let b = 1;
      let w = 1;
      if (c >= 0x80) {
        b = c < 0x800 ? 2 : 3;
        if (c >= 0xDC00 && c <= 0xDFFF && i >= 2) {
          const h = codeAt(s, i - 2);
          if (h >= 0xD800 && h <= 0xDBFF) { b = 4; w = 2; }
        }
      }
      if (bytes + b > max) break;
      bytes += b;
      i -= w;
    }
    return s.length - i;
  }

  // utf8Bytes is the length of s in UTF-8 once made well-formed.
  function utf8Bytes(s) {
    let bytes = 0;
    for (let i = 0; i < s.length; i++) {
      const c = codeAt(s, i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length && codeAt(s, i + 1) >= 0xDC00 && codeAt(s, i + 1) <= 0xDFFF) { bytes += 4; i++; }
      else bytes += 3;
    }
    return bytes;
  }

  // fitsBytes reports whether s is at most max bytes of UTF-8; it reads at
  // most max code units.
  function fitsBytes(s, max) {
    if (s.length * 3 <= max) return true;
    if (s.length > max) return false;
    return headUnits(s, max) === s.length;
  }

  // cutMiddle returns s, or when its UTF-8 is longer than max bytes its
  // beginning and end with a note where the middle was: at most max bytes.
  // why ends the note ("... characters cut: <why> ...").
  function cutMiddle(s, max, why) {
    if (fitsBytes(s, max)) return s;
    const noteFor = (n) => '\n[... ' + n + ' characters cut: ' + why + ' ...]\n';
    const room = max - noteFor(s.length).length;
    if (room <= 0) return ReflectApply(stringSlice, s, [0, headUnits(s, max)]);
    const head = headUnits(s, room - (room >> 1));
    const tail = tailUnits(s, room >> 1);
    return ReflectApply(stringSlice, s, [0, head]) + noteFor(s.length - head - tail) +
      ReflectApply(stringSlice, s, [s.length - tail]);
  }

  function outputText(s) {
    return cutMiddle(s, limits.outputBytes, "this text was longer than the cell's output limit of " + limits.outputBytes + ' bytes');
  }

  function errorText(s) {
    return cutMiddle(s, limits.errorBytes, 'an error text may be at most ' + limits.errorBytes + ' bytes');
  }

  // serialising counts the JSON.stringify calls of ours in progress: a tool
  // named toJSON is then JSON.stringify asking the tools object for its
  // JSON, not the script calling the tool.
  let serialising = 0;
  let toolsObject = null;
  function jsonOf(value, replacer) {
    serialising++;
    try {
      return stringify(value, replacer);
    } finally {
      serialising--;
    }
  }

  // kindOf names a value's type for error messages.
  function kindOf(v) {
    if (v === null) return 'null';
    if (isArray(v)) return 'an array';
    const t = typeof v;
    if (t === 'object') return 'an object';
    if (t === 'undefined') return 'undefined';
    return t === 'string' ? 'a string' : t === 'number' ? 'a number (' + StringCtor(v) + ')' : 'a ' + t;
  }

  function isErrorLike(v) {
    return v !== null && typeof v === 'object' && typeof v.message === 'string' &&
      (v instanceof ErrorCtor || typeof v.stack === 'string');
  }

  // toJSONText renders objects as compact JSON, marking cycles, BigInts,
  // functions, Maps and Sets so nothing throws.
  function toJSONText(value) {
    const ancestors = [];
    function replacer(key, v) {
      switch (typeof v) {
        case 'bigint': return StringCtor(v) + 'n';
        case 'function': return '[Function: ' + (v.name || 'anonymous') + ']';
        case 'symbol': return ReflectApply(symbolToString, v, []);
        case 'undefined': return key === '' ? v : null;
        case 'object': break;
        default: return v;
      }
      if (v === null) return v;
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) {
        ReflectApply(arrayPop, ancestors, []);
      }
      if (ReflectApply(arrayIncludes, ancestors, [v])) return '[Circular]';
      ReflectApply(arrayPush, ancestors, [v]);
      if (isErrorLike(v)) return StringCtor(v.name) + ': ' + v.message;
      const proto = getPrototypeOf(v);
      if (proto === MapProto) return fromEntries(ReflectApply(mapEntries, v, []));
      if (proto === SetProto) return arrayFrom(v);
      return v;
    }
    return jsonOf(value, replacer);
  }

  // format turns any value into the text a person expects to read.
  function format(v) {
    try {
      switch (typeof v) {
        case 'string': return v;
        case 'symbol': return ReflectApply(symbolToString, v, []);
        case 'bigint': return StringCtor(v) + 'n';
        case 'function': return '[Function: ' + (v.name || 'anonymous') + ']';
        case 'object':
          if (v === null) return 'null';
          if (isErrorLike(v)) return StringCtor(v.name) + ': ' + v.message;
          {
            const s = toJSONText(v);
            return s === undefined ? StringCtor(v) : s;
          }
        default: return StringCtor(v);
      }
    } catch (e) {
      // Never the tools object's toString or valueOf: they may be tools.
      if (v === toolsObject) return ReflectApply(objectToString, v, []);
      try { return StringCtor(v); } catch (e2) { return '[unprintable ' + typeof v + ']'; }
    }
  }

  // formatArgs joins console's arguments with spaces. A first argument
  // that is a string may hold printf-style directives, which take the
  // next arguments, as in Node and browsers: %s (String of a primitive),
  // %d and %i (a number; %i an integer), %f, %j (JSON), %o and %O (the
  // value as text() prints it), %c (a CSS style: dropped) and %%.
  // numberText is String(n), but "-0" for -0, as Node's directives print it.
  function numberText(n) {
    return n === 0 && 1 / n < 0 ? '-0' : StringCtor(n);
  }

  function formatArgs(args) {
    if (args.length === 1) return format(args[0]);
    const parts = [];
    let next = 0;
    if (typeof args[0] === 'string' && ReflectApply(stringIndexOf, args[0], ['%']) >= 0) {
      const f = args[0];
      let head = '';
      let from = 0;
      next = 1;
      for (let i = 0; i < f.length - 1; i++) {
        if (codeAt(f, i) !== 37) continue; // '%'
        const c = ReflectApply(stringSlice, f, [i + 1, i + 2]);
        let piece;
        if (c === '%') {
          piece = '%';
        } else if (next >= args.length || !ReflectApply(arrayIncludes, ['s', 'd', 'i', 'f', 'j', 'o', 'O', 'c'], [c])) {
          continue;
        } else {
          const a = args[next++];
          switch (c) {
            case 's': piece = typeof a === 'bigint' ? StringCtor(a) + 'n' : typeof a === 'symbol' ? ReflectApply(symbolToString, a, []) : (a !== null && typeof a === 'object') ? format(a) : typeof a === 'number' ? numberText(a) : StringCtor(a); break;
            case 'd': piece = typeof a === 'bigint' ? StringCtor(a) + 'n' : typeof a === 'symbol' ? 'NaN' : numberText(NumberCtor(a)); break;
            case 'i': piece = typeof a === 'bigint' ? StringCtor(a) + 'n' : typeof a === 'symbol' ? 'NaN' : numberText(numberParseInt(a)); break;
            case 'f': piece = typeof a === 'symbol' ? 'NaN' : StringCtor(numberParseFloat(a)); break;
            case 'j': try { piece = StringCtor(stringify(a)); } catch (e) { piece = '[Circular]'; } break;
            case 'c': piece = ''; break;
            default: piece = format(a);
          }
        }
        head += ReflectApply(stringSlice, f, [from, i]) + piece;
        from = i + 2;
        i++;
      }
      ReflectApply(arrayPush, parts, [head + ReflectApply(stringSlice, f, [from])]);
    }
    for (let i = next; i < args.length; i++) ReflectApply(arrayPush, parts, [format(args[i])]);
    return ReflectApply(arrayJoin, parts, [' ']);
  }

  // describe reports a thrown value to Go as JSON text: an object with no
  // prototype (no toJSON a script set on Object.prototype applies), whose
  // texts are cut to limits.errorBytes. It reads each property of the value
  // once; a getter that loops is stopped by the cell's limits, which no
  // catch here can catch. V8 swallows a stop that lands while it formats
  // an Error's stack (it calls the name and message getters): after that
  // read it asks Go, and gives up when the cell was stopped.
  const STOPPED = '{"name":"Error","message":"the cell was stopped while its error was described","stack":""}';
  function describe(e) {
    try {
      if (e !== null && typeof e === 'object') {
        const message = e.message;
        if (typeof message === 'string') {
          const stack = e.stack;
          if (hostStopped()) return STOPPED;
          if (typeof stack === 'string' || e instanceof ErrorCtor) {
            const name = e.name;
            const d = { __proto__: null, name: errorText(StringCtor(name || 'Error')), message: errorText(message),
              stack: typeof stack === 'string' ? errorText(stack) : '' };
            const code = e.code;
            if (typeof code === 'string') d.code = errorText(code);
            const tool = e.tool;
            if (typeof tool === 'string') d.tool = errorText(tool);
            return stringify(d);
          }
        }
      }
      return stringify({ __proto__: null, name: 'Error', message: errorText('Uncaught ' + format(e)), stack: '' });
    } catch (err) {
      return stringify({ __proto__: null, name: 'Error', message: 'Uncaught exception that could not be described', stack: '' });
    }
  }

  class ToolError extends ErrorCtor {
    constructor(message, code, tool) {
      super(message);
      defineProperty(this, 'name', { value: 'ToolError', writable: true, configurable: true, enumerable: false });
      this.code = code;
      this.tool = tool;
    }
  }

  function toolError(tool, e) {
    if (e !== null && typeof e === 'object' && typeof e.code === 'string') {
      return new ToolError(StringCtor(e.message), e.code, tool);
    }
    return new ToolError(format(e), 'internal', tool);
  }

  // Output helpers.
  function out(type, level, text, detail) {
    ReflectApply(hostOut, undefined, [type, level, type === 'text' ? outputText(text) : text, detail || '']);
  }
  // console has Node's and browsers' methods, so a script that uses any
  // of them runs; each prints through out at one of the five levels.
  // Between group() and groupEnd() console's lines are indented by two
  // spaces a level, as in Node.
  const console = {};
  let groupIndent = '';
  function consoleOut(level, text) {
    if (groupIndent !== '') text = groupIndent + ReflectApply(stringReplaceAll, text, ['\n', '\n' + groupIndent]);
    out('text', level, text);
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    console[level] = { [level](...args) { consoleOut(level, formatArgs(args)); } }[level];
  }
  console.trace = console.debug;
  console.dir = { dir(value) { consoleOut('log', format(value)); } }.dir;
  console.dirxml = { dirxml(...args) { consoleOut('log', formatArgs(args)); } }.dirxml;
  console.table = { table(data) { consoleOut('log', format(data)); } }.table;
  console.assert = {
    assert(condition, ...args) {
      if (condition) return;
      if (args.length === 0) args = ['Assertion failed'];
      else if (typeof args[0] === 'string') args[0] = 'Assertion failed: ' + args[0];
      else args = ['Assertion failed:', ...args];
      consoleOut('error', formatArgs(args));
    },
  }.assert;
  const counts = new MapCtor();
  console.count = {
    count(label = 'default') {
      label = StringCtor(label);
      const n = (ReflectApply(mapGet, counts, [label]) || 0) + 1;
      ReflectApply(mapSet, counts, [label, n]);
      consoleOut('log', label + ': ' + n);
    },
  }.count;
  console.countReset = { countReset(label = 'default') { ReflectApply(mapDelete, counts, [StringCtor(label)]); } }.countReset;
  const timeStarts = new MapCtor();
  function elapsed(label, method) {
    const start = ReflectApply(mapGet, timeStarts, [label]);
    if (start === undefined) {
      consoleOut('warn', "Warning: No such label '" + label + "' for console." + method + '()');
      return undefined;
    }
    const ms = hostNow() - start;
    return label + ': ' + (ms >= 1000 ? (ms / 1000).toFixed(3) + 's' : ms.toFixed(3) + 'ms');
  }
  console.time = {
    time(label = 'default') {
      label = StringCtor(label);
      if (ReflectApply(mapHas, timeStarts, [label])) {
        consoleOut('warn', "Warning: Label '" + label + "' already exists for console.time()");
        return;
      }
      ReflectApply(mapSet, timeStarts, [label, hostNow()]);
    },
  }.time;
  console.timeEnd = {
    timeEnd(label = 'default') {
      label = StringCtor(label);
      const t = elapsed(label, 'timeEnd');
      if (t === undefined) return;
      ReflectApply(mapDelete, timeStarts, [label]);
      consoleOut('log', t);
    },
  }.timeEnd;
  console.timeLog = {
    timeLog(label = 'default', ...args) {
      const t = elapsed(StringCtor(label), 'timeLog');
      if (t !== undefined) consoleOut('log', args.length > 0 ? t + ' ' + formatArgs(args) : t);
    },
  }.timeLog;
  function group(label) {
    if (label.length > 0) consoleOut('log', formatArgs(label));
    groupIndent += '  ';
  }
  console.group = { group(...label) { group(label); } }.group;
  console.groupCollapsed = { groupCollapsed(...label) { group(label); } }.groupCollapsed;
  console.groupEnd = { groupEnd() { groupIndent = ReflectApply(stringSlice, groupIndent, [2]); } }.groupEnd;

  function text(value) {
    out('text', '', format(value));
  }

  // Timers run on the cell's event loop; pending ones never keep a finished
  // script alive. An interval is a timer that fireTimer arms again, with
  // its period in intervals, before it runs the callback.
  const timers = new MapCtor();
  const intervals = new MapCtor(); // id -> period in ms
  let nextTimer = 1;
  function setTimeout(callback, delay, ...args) {
    if (typeof callback !== 'function') {
      throw new TypeErrorCtor('setTimeout expects a function as its first argument; got ' + kindOf(callback));
    }
    let ms = NumberCtor(delay);
    if (!isFiniteNumber(ms) || ms < 0) ms = 0;
    const id = nextTimer++;
    ReflectApply(mapSet, timers, [id, () => ReflectApply(callback, undefined, args)]);
    hostTimer(id, ms);
    return id;
  }
  // Node's bounds for an interval's period: under 1 ms (or not a number)
  // or over 2^31-1 ms is 1 ms.
  const TIMEOUT_MAX = 2147483647;
  function setInterval(callback, delay, ...args) {
    if (typeof callback !== 'function') {
      throw new TypeErrorCtor('setInterval expects a function as its first argument; got ' + kindOf(callback));
    }
    let ms = NumberCtor(delay);
    if (!(ms >= 1 && ms <= TIMEOUT_MAX)) ms = 1;
    const id = nextTimer++;
    ReflectApply(mapSet, timers, [id, () => ReflectApply(callback, undefined, args)]);
    ReflectApply(mapSet, intervals, [id, ms]);
    hostTimer(id, ms);
    return id;
  }
  // clearTimer cancels a timeout or an interval, as either clear function
  // does in browsers and Node.
  function clearTimer(name, id) {
    if (typeof id === 'symbol') throw new TypeErrorCtor(name + ' expects a numeric timer id; got a symbol');
    const n = NumberCtor(id);
    ReflectApply(mapDelete, intervals, [n]);
    if (ReflectApply(mapDelete, timers, [n])) hostTimer(n, -1);
  }
  function clearTimeout(id) {
    clearTimer('clearTimeout', id);
  }
  function clearInterval(id) {
    clearTimer('clearInterval', id);
  }
  function queueMicrotask(callback) {
    if (typeof callback !== 'function') {
      throw new TypeErrorCtor('queueMicrotask expects a function; got ' + kindOf(callback));
    }
    ReflectApply(promiseThen, promiseResolve(), [() => ReflectApply(callback, undefined, [])]);
  }

  function exit() {
    hostExit();
  }

  // crypto: random bytes from Go's crypto/rand, with the Web Crypto API's
  // checks and errors.
  const INTEGER_ARRAYS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
    'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];
  const HEX = '0123456789abcdef';
  function getRandomValues(array) {
    if (!isView(array)) {
      throw new TypeErrorCtor('crypto.getRandomValues expects an integer typed array (Uint8Array, Uint32Array, ...); got ' + kindOf(array));
    }
    const type = ReflectApply(typedArrayTag, array, []);
    if (!ReflectApply(arrayIncludes, INTEGER_ARRAYS, [type])) {
      throw domException("The provided ArrayBufferView is of type '" + (type || 'DataView') +
        "', which is not an integer array type.", 'TypeMismatchError');
    }
    const n = ReflectApply(typedArrayByteLength, array, []);
    if (n > limits.randomBytes) {
      throw domException("The ArrayBufferView's byte length (" + n + ') exceeds the number of bytes of entropy available via this API (' +
        limits.randomBytes + ').', 'QuotaExceededError');
    }
    const s = hostRandom(n);
    const bytes = new Uint8ArrayCtor(ReflectApply(typedArrayBuffer, array, []), ReflectApply(typedArrayOffset, array, []), n);
    for (let i = 0; i < n; i++) bytes[i] = codeAt(s, i);
    return array;
  }
  function randomUUID() {
    const s = hostRandom(16);
    let id = '';
    for (let i = 0; i < 16; i++) {
      let b = codeAt(s, i);
      if (i === 6) b = (b & 0x0F) | 0x40; // version 4
      else if (i === 8) b = (b & 0x3F) | 0x80; // variant 10
      id += HEX[b >> 4] + HEX[b & 0x0F];
      if (i === 3 || i === 5 || i === 7 || i === 9) id += '-';
    }
    return id;
  }
  const crypto = { getRandomValues, randomUUID };
  defineProperty(crypto, Symbol.toStringTag, { value: 'Crypto', configurable: true });

  // performance.now() counts from the cell's start on a monotonic clock.
  let timeOrigin = dateNow();
  const performance = {
    now() { return hostNow(); },
    get timeOrigin() { return timeOrigin; },
  };
  defineProperty(performance, Symbol.toStringTag, { value: 'Performance', configurable: true });

  function notify(value) {
    const s = format(value);
    if (ReflectApply(stringTrim, s, []) === '') {
      throw new TypeErrorCtor('notify expects non-empty text');
    }
    hostNotify(cutMiddle(s, limits.notifyBytes, 'a notification may be at most ' + limits.notifyBytes + ' bytes'));
  }

  function yield_control() {
    hostYield();
  }

  const DETAILS = ['auto', 'low', 'high', 'original'];
  const remoteURL = /^[a-z][a-z0-9+.-]*:\/\//i;
  const dataURL = /^data:[^,]*,/i;
  function image(value, detail) {
    let url;
    let d;
    if (typeof value === 'string') {
      url = value;
    } else if (value !== null && typeof value === 'object' && typeof value.image_url === 'string') {
      url = value.image_url;
      d = value.detail;
    } else if (value !== null && typeof value === 'object' && value.type === 'image' && typeof value.data === 'string') {
      const mime = typeof value.mimeType === 'string' && value.mimeType !== '' ? value.mimeType : 'image/png';
      url = 'data:' + mime + ';base64,' + value.data;
      const meta = value._meta;
      if (meta !== null && typeof meta === 'object') d = meta['codex/imageDetail'];
    } else {
      throw new TypeErrorCtor('image expects a data: URL string, {image_url, detail?} or an MCP image block {type: "image", data, mimeType}; got ' + kindOf(value));
    }
    if (ReflectApply(regexpTest, remoteURL, [url])) {
      throw new TypeErrorCtor('image: remote URLs are not supported; fetch the image with a tool and pass its bytes as a data: URL (data:image/png;base64,...) or an MCP image block');
    }
    if (!ReflectApply(regexpTest, dataURL, [url])) {
      throw new TypeErrorCtor('image expects a data: URL (data:<mime>;base64,<data>); got a string starting ' + stringify(url.slice(0, 24)));
    }
    if (!fitsBytes(url, limits.outputBytes)) {
      // Past the limit in code units it is past it in bytes: count no more.
      const size = url.length > limits.outputBytes ? 'at least ' + url.length : '' + utf8Bytes(url);
      throw new RangeErrorCtor('image: the data URL is ' + size +
        " bytes, more than the cell's output limit of " + limits.outputBytes + ' bytes; send a smaller image (scale it down or compress it)');
    }
    if (detail !== undefined && detail !== null) d = detail;
    if (d === undefined || d === null) {
      d = 'high';
    } else {
      d = ReflectApply(stringToLower, StringCtor(d), []);
      if (!ReflectApply(arrayIncludes, DETAILS, [d])) {
        throw new TypeErrorCtor('image detail must be one of auto, low, high, original; got ' + stringify(StringCtor(detail === undefined ? d : detail)));
      }
    }
    out('image', '', url, d);
  }

  // store/load: session-scoped JSON values. The cell sees a snapshot taken
  // when it started; each write goes to Go at once (which checks it against
  // the session's store limit and keeps it, whatever ends the cell) and is
  // visible to load here.
  const stored = new MapCtor(); // key -> JSON text
  function storeReplacer(key, v) {
    const t = typeof v;
    if (t === 'function' || t === 'symbol' || t === 'bigint') {
      throw new TypeErrorCtor('a ' + t + (key === '' ? '' : ' at key ' + stringify(key)) + ' is not JSON');
    }
    return v;
  }
  function keyLabel(k) {
    return stringify(k.length > 64 ? ReflectApply(stringSlice, k, [0, 64]) + '...' : k);
  }
  // storeKey is the key a store entry is kept under: the key as text, each
  // lone surrogate replaced by U+FFFD as it will be in Go, so load() finds
  // an entry by the key it was stored with in this cell and in later ones.
  function storeKey(key) {
    const k = StringCtor(key);
    let out = '';
    let last = 0;
    for (let i = 0; i < k.length; i++) {
      const c = ReflectApply(charCodeAt, k, [i]);
      if (c < 0xD800 || c > 0xDFFF) continue;
      if (c <= 0xDBFF && i + 1 < k.length) {
        const d = ReflectApply(charCodeAt, k, [i + 1]);
        if (d >= 0xDC00 && d <= 0xDFFF) {
          i++;
          continue;
        }
      }
      out += ReflectApply(stringSlice, k, [last, i]) + '\uFFFD';
      last = i + 1;
    }
    return last === 0 ? k : out + ReflectApply(stringSlice, k, [last]);
  }
  // store(key, undefined), or store(key), deletes key: Go records the
  // deletion (an empty value), and cell.result.store carries the key
  // without a value.
  function store(key, value) {
    const k = storeKey(key);
    if (k.length > limits.storeBytes) {
      // Refused before it crosses; Go counts the store as a whole.
      throw new RangeErrorCtor('store: storing ' + keyLabel(k) + " would make the session's store more than " +
        limits.storeBytes + ' bytes, over its limit of ' + limits.storeBytes +
        ' bytes (store_bytes); store less, or overwrite keys you no longer need with a small value');
    }
    if (value === undefined) {
      hostStore(k, '');
      ReflectApply(mapDelete, stored, [k]);
      return;
    }
    let json;
    try {
      json = jsonOf(value, storeReplacer);
    } catch (e) {
      throw new TypeErrorCtor('Unable to store ' + keyLabel(k) + ': only JSON-serialisable values can be stored (' + (e && e.message) + ')');
    }
    if (json === undefined) {
      throw new TypeErrorCtor('Unable to store ' + keyLabel(k) + ': only JSON-serialisable values can be stored (got ' + kindOf(value) + ')');
    }
    if (k.length + json.length > limits.storeBytes) {
      // Refused before it crosses; Go counts the store as a whole.
      throw new RangeErrorCtor('store: storing ' + keyLabel(k) + " would make the session's store more than " +
        limits.storeBytes + ' bytes, over its limit of ' + limits.storeBytes +
        ' bytes (store_bytes); store less, or overwrite keys you no longer need with a small value');
    }
    hostStore(k, json);
    ReflectApply(mapSet, stored, [k, json]);
  }
  function load(key) {
    const json = ReflectApply(mapGet, stored, [storeKey(key)]);
    return json === undefined ? undefined : parse(json);
  }

  let allTools = [];
  function searchTools(query, limit) {
    if (typeof query !== 'string' || ReflectApply(stringTrim, query, []) === '') {
      throw new TypeErrorCtor('searchTools expects a non-empty query string; got ' + kindOf(query));
    }
    let n = limit === undefined ? limits.searchLimit : NumberCtor(limit);
    if (!isFiniteNumber(n) || n < 1) {
      throw new TypeErrorCtor('searchTools limit must be a positive number; got ' + StringCtor(limit));
    }
    if (query.length > limits.searchQueryChars) {
      throw new RangeErrorCtor('searchTools: the query is ' + query.length + ' characters; the limit is ' +
        limits.searchQueryChars + '. Search with a few keywords');
    }
    const ids = hostSearch(query, n > allTools.length ? allTools.length : n | 0);
    const hits = [];
    for (let i = 0; i < ids.length; i++) ReflectApply(arrayPush, hits, [allTools[ids[i]]]);
    return hits;
  }

  // Rejections nobody handles fail the cell. The shim calls the hook; it is
  // a global only until __cm_adopt_reject moves it out of the script's
  // reach, so a script can neither fake nor clear a rejection.
  const unhandled = new MapCtor();
  defineProperty(g, '__codemode_reject__', {
    value: function (promise, reason) {
      if (arguments.length >= 2) ReflectApply(mapSet, unhandled, [promise, reason]);
      else ReflectApply(mapDelete, unhandled, [promise]);
      hostUnhandled(ReflectApply(mapSize, unhandled, []));
    },
    writable: false, enumerable: false, configurable: true,
  });
  if (!hostAdoptReject() || ReflectApply(hasOwn, g, ['__codemode_reject__'])) {
    throw new ErrorCtor('prelude: the rejection hook could not be hidden');
  }

  const globals = {
    console, text, image, notify, yield_control, store, load, searchTools,
    setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, exit, ToolError, crypto, performance,
  };
  for (const k in globals) {
    defineProperty(g, k, { value: globals[k], writable: true, enumerable: false, configurable: true });
  }

  // stripMeta drops _meta from MCP-style results ({content: [...], _meta}).
  function stripMeta(r) {
    if (r !== null && typeof r === 'object' && isArray(r.content) && ReflectApply(hasOwn, r, ['_meta'])) {
      delete r._meta;
    }
    return r;
  }

  const THENABLE = 'the tools object cannot be awaited or returned as a value: it has a tool named then, ' +
    'which promises take for its then method; call tools.then({...}) to use the tool, and return or await something else';

  function makeTool(index, def) {
    const ident = def.ident;
    const label = 'tools.' + ident;
    const qname = def.qualified;
    let fn;
    if (def.kind === 'freeform') {
      fn = { async [ident](input) {
        if (typeof input !== 'string') {
          throw new TypeErrorCtor(label + ' is a freeform tool and expects a string; got ' + kindOf(input));
        }
        try {
          return stripMeta(await hostCall(index, stringify(input)));
        } catch (e) {
          throw toolError(qname, e);
        }
      } }[ident];
    } else {
      fn = { async [ident](args) {
        if (args === undefined) args = {};
        if (args === null || typeof args !== 'object' || isArray(args)) {
          throw new TypeErrorCtor(label + ' expects an object argument; got ' + kindOf(args));
        }
        let input;
        try {
          input = jsonOf(args);
        } catch (e) {
          throw new TypeErrorCtor(label + ': the argument cannot be sent as JSON (' + e.message + ')');
        }
        if (input === undefined) {
          throw new TypeErrorCtor(label + ': the argument cannot be sent as JSON (its toJSON returned no JSON value)');
        }
        try {
          return stripMeta(await hostCall(index, input));
        } catch (e) {
          throw toolError(qname, e);
        }
      } }[ident];
    }
    const call = fn;
    if (ident === 'toJSON') {
      // JSON.stringify of ours asks the tools object for its JSON: the
      // object itself, so formatting shows the tools and calls none.
      fn = { toJSON(input) {
        if (serialising > 0 && this === toolsObject && typeof input === 'string') return this;
        return call(input);
      } }.toJSON;
    } else if (ident === 'then') {
      // await tools / return tools: the promise machinery calls then with
      // its two resolving functions; refuse clearly instead of calling the
      // tool with them (which would leave the await pending forever).
      fn = { then(input, onRejected) {
        if (this === toolsObject && typeof input === 'function' && typeof onRejected === 'function') {
          onRejected(new TypeErrorCtor(THENABLE));
          return undefined;
        }
        return call(input);
      } }.then;
    }
    return fn;
  }

  return {
    // install binds the cell's tools: [{ident, qualified, kind, description, declaration}].
    install(table, snapshot, lim) {
      limits = lim;
      timeOrigin = dateNow() - hostNow();
      const keys = objectKeys(snapshot);
      for (let i = 0; i < keys.length; i++) ReflectApply(mapSet, stored, [keys[i], snapshot[keys[i]]]);
      // No prototype, and every tool an own data property: a tool named
      // __proto__, constructor or hasOwnProperty is just a tool.
      const tools = objectCreate(null);
      toolsObject = tools;
      const all = [];
      for (let i = 0; i < table.length; i++) {
        const def = table[i];
        defineProperty(tools, def.ident, { value: makeTool(i, def), writable: false, enumerable: true, configurable: false });
        ReflectApply(arrayPush, all, [freeze({ name: def.ident, description: def.description, declaration: def.declaration })]);
      }
      allTools = all;
      defineProperty(g, 'tools', { value: freeze(tools), writable: false, enumerable: false, configurable: false });
      defineProperty(g, 'ALL_TOOLS', { value: freeze(all), writable: false, enumerable: false, configurable: false });
    },
    fireTimer(id) {
      const cb = ReflectApply(mapGet, timers, [id]);
      if (cb === undefined) return;
      const period = ReflectApply(mapGet, intervals, [id]);
      if (period === undefined) ReflectApply(mapDelete, timers, [id]);
      else hostTimer(id, period);
      cb();
    },
    describe,
    makeError(name, message) {
      const E = name === 'RangeError' ? RangeError : name === 'TypeError' ? TypeErrorCtor : name === 'Error' ? ErrorCtor : null;
      if (E !== null) return new E(message);
      const e = new ErrorCtor(message);
      defineProperty(e, 'name', { value: name, writable: true, configurable: true, enumerable: false });
      return e;
    },
    // result formats the top-level return value, cut to the output limit,
    // or returns undefined.
    result(v) {
      if (v === undefined) return undefined;
      return outputText(typeof v === 'string' ? v : format(v));
    },
    // firstUnhandled describes the first rejection nobody handled (no Map
    // iterator: a script may have replaced %MapIteratorPrototype%.next).
    firstUnhandled() {
      let found = false;
      let reason;
      ReflectApply(mapForEach, unhandled, [(r) => {
        if (!found) { found = true; reason = r; }
      }]);
      return found ? describe(reason) : undefined;
    },
  };
})()
