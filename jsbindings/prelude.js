// The script's global scope, installed into every fresh context before the
// user's source runs. It captures the raw host functions (__cm_*) and the
// built-ins it relies on, deletes what scripts must not see, and returns the
// internal object the Go side drives (install, fireTimer, describe, ...).
//
// Host functions (Go, loop goroutine):
//   __cm_call(toolIndex, inputJSON) -> Promise (resolves with the parsed
//       result; rejects with {code, message})
//   __cm_out(type, level, text, detail)
//   __cm_timer(id, delayMs)   delayMs < 0 clears
//   __cm_exit()
//   __cm_unhandled(count)
//   __cm_notify(text)
//   __cm_yield()
//   __cm_search(query, limit) -> JSON array of tool indexes, best first
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
  for (const k of ['__cm_call', '__cm_out', '__cm_timer', '__cm_exit', '__cm_unhandled',
    '__cm_notify', '__cm_yield', '__cm_search', 'Atomics', 'SharedArrayBuffer', 'WebAssembly']) {
    delete g[k];
  }

  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const regexpTest = RegExp.prototype.test;
  const stringTrim = String.prototype.trim;
  const stringToLower = String.prototype.toLowerCase;
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
    return stringify(value, replacer);
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
      try { return StringCtor(v); } catch (e2) { return '[unprintable ' + typeof v + ']'; }
    }
  }

  function formatArgs(args) {
    if (args.length === 1) return format(args[0]);
    const parts = [];
    for (let i = 0; i < args.length; i++) ReflectApply(arrayPush, parts, [format(args[i])]);
    return ReflectApply(arrayJoin, parts, [' ']);
  }

  // describe reports a thrown value to Go as JSON text.
  function describe(e) {
    try {
      if (isErrorLike(e)) {
        const d = { name: StringCtor(e.name || 'Error'), message: StringCtor(e.message), stack: typeof e.stack === 'string' ? e.stack : '' };
        if (typeof e.code === 'string') d.code = e.code;
        if (typeof e.tool === 'string') d.tool = e.tool;
        return stringify(d);
      }
      return stringify({ name: 'Error', message: 'Uncaught ' + format(e), stack: '' });
    } catch (err) {
      return stringify({ name: 'Error', message: 'Uncaught exception that could not be described', stack: '' });
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
    ReflectApply(hostOut, undefined, [type, level, text, detail || '']);
  }
  const console = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    console[level] = { [level](...args) { out('text', level, formatArgs(args)); } }[level];
  }
  console.trace = console.debug;

  function text(value) {
    out('text', '', format(value));
  }

  // Timers run on the cell's event loop; pending ones never keep a finished
  // script alive.
  const timers = new MapCtor();
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
  function clearTimeout(id) {
    if (typeof id === 'symbol') throw new TypeErrorCtor('clearTimeout expects a numeric timer id; got a symbol');
    const n = NumberCtor(id);
    if (ReflectApply(mapDelete, timers, [n])) hostTimer(n, -1);
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

  function notify(value) {
    const s = format(value);
    if (ReflectApply(stringTrim, s, []) === '') {
      throw new TypeErrorCtor('notify expects non-empty text');
    }
    hostNotify(s);
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
  // when it started; its writes are visible to load at once and committed
  // by the session when the cell ends.
  const stored = new MapCtor(); // key -> JSON text
  const written = new MapCtor(); // keys this cell wrote -> JSON text
  function storeReplacer(key, v) {
    const t = typeof v;
    if (t === 'function' || t === 'symbol' || t === 'bigint') {
      throw new TypeErrorCtor('a ' + t + (key === '' ? '' : ' at key ' + stringify(key)) + ' is not JSON');
    }
    return v;
  }
  function store(key, value) {
    const k = StringCtor(key);
    let json;
    try {
      json = stringify(value, storeReplacer);
    } catch (e) {
      throw new TypeErrorCtor('Unable to store ' + stringify(k) + ': only JSON-serialisable values can be stored (' + (e && e.message) + ')');
    }
    if (json === undefined) {
      throw new TypeErrorCtor('Unable to store ' + stringify(k) + ': only JSON-serialisable values can be stored (got ' + kindOf(value) + ')');
    }
    ReflectApply(mapSet, stored, [k, json]);
    ReflectApply(mapSet, written, [k, json]);
  }
  function load(key) {
    const json = ReflectApply(mapGet, stored, [StringCtor(key)]);
    return json === undefined ? undefined : parse(json);
  }

  let allTools = [];
  function searchTools(query, limit) {
    if (typeof query !== 'string' || ReflectApply(stringTrim, query, []) === '') {
      throw new TypeErrorCtor('searchTools expects a non-empty query string; got ' + kindOf(query));
    }
    let n = limit === undefined ? 8 : NumberCtor(limit);
    if (!isFiniteNumber(n) || n < 1) {
      throw new TypeErrorCtor('searchTools limit must be a positive number; got ' + StringCtor(limit));
    }
    const ids = hostSearch(query, n | 0);
    const hits = [];
    for (let i = 0; i < ids.length; i++) ReflectApply(arrayPush, hits, [allTools[ids[i]]]);
    return hits;
  }

  // Rejections nobody handles fail the cell (the shim calls the hook).
  const unhandled = new MapCtor();
  defineProperty(g, '__codemode_reject__', {
    value: function (promise, reason) {
      if (arguments.length >= 2) ReflectApply(mapSet, unhandled, [promise, reason]);
      else ReflectApply(mapDelete, unhandled, [promise]);
      hostUnhandled(ReflectApply(mapSize, unhandled, []));
    },
    writable: false, enumerable: false, configurable: false,
  });

  const globals = {
    console, text, image, notify, yield_control, store, load, searchTools,
    setTimeout, clearTimeout, queueMicrotask, exit, ToolError,
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
          input = stringify(args);
        } catch (e) {
          throw new TypeErrorCtor(label + ': the argument cannot be sent as JSON (' + e.message + ')');
        }
        try {
          return stripMeta(await hostCall(index, input));
        } catch (e) {
          throw toolError(qname, e);
        }
      } }[ident];
    }
    return fn;
  }

  return {
    // install binds the cell's tools: [{ident, qualified, kind, description, declaration}].
    install(table, snapshot) {
      const keys = objectKeys(snapshot);
      for (let i = 0; i < keys.length; i++) ReflectApply(mapSet, stored, [keys[i], snapshot[keys[i]]]);
      const tools = {};
      const all = [];
      for (let i = 0; i < table.length; i++) {
        const def = table[i];
        tools[def.ident] = makeTool(i, def);
        ReflectApply(arrayPush, all, [freeze({ name: def.ident, description: def.description, declaration: def.declaration })]);
      }
      allTools = all;
      defineProperty(g, 'tools', { value: freeze(tools), writable: false, enumerable: false, configurable: false });
      defineProperty(g, 'ALL_TOOLS', { value: freeze(all), writable: false, enumerable: false, configurable: false });
    },
    fireTimer(id) {
      const cb = ReflectApply(mapGet, timers, [id]);
      if (cb === undefined) return;
      ReflectApply(mapDelete, timers, [id]);
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
    // result formats the top-level return value, or returns undefined.
    result(v) {
      if (v === undefined) return undefined;
      if (typeof v === 'string') return v;
      return format(v);
    },
    // storeWrites returns the keys this cell stored, as {key: JSON text}.
    storeWrites() {
      if (ReflectApply(mapSize, written, []) === 0) return undefined;
      return stringify(fromEntries(ReflectApply(mapEntries, written, [])));
    },
    firstUnhandled() {
      for (const entry of ReflectApply(mapEntries, unhandled, [])) return describe(entry[1]);
      return undefined;
    },
  };
})()
