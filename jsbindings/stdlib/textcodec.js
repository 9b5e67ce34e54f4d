'use strict';
// TextEncoder and TextDecoder as the WHATWG Encoding Standard defines them,
// for UTF-8 (both ways) and, to decode, UTF-16LE, UTF-16BE and
// windows-1252 (the encoding the labels latin1, ascii and iso-8859-1
// name). Any other label is a RangeError, as in Node built without ICU.
//
// Hand-written because no package fits: fast-text-encoding drops lone
// surrogates, decodes malformed bytes to garbage and has no fatal, stream
// or encodeInto; the archived text-encoding polyfill (@sinonjs) needs a
// 530 KB index table and has no encodeInto; @kayahr/text-encoding keeps
// its state in own properties, decodes a string as "" instead of throwing
// and encodes a 1 M-character string in ~480 ms where this takes ~15.

const ReflectApply = Reflect.apply;
const fromCharCode = String.fromCharCode;
const charCodeAt = String.prototype.charCodeAt;
const StringCtor = String;
const TypeErrorCtor = TypeError;
const RangeErrorCtor = RangeError;
const Uint8ArrayCtor = Uint8Array;
const Uint16ArrayCtor = Uint16Array;
const isView = ArrayBuffer.isView;
const arrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayTag = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;
const typedArrayBuffer = Object.getOwnPropertyDescriptor(TypedArrayProto, 'buffer').get;
const typedArrayOffset = Object.getOwnPropertyDescriptor(TypedArrayProto, 'byteOffset').get;
const typedArrayLength = Object.getOwnPropertyDescriptor(TypedArrayProto, 'byteLength').get;
const dataViewBuffer = Object.getOwnPropertyDescriptor(DataView.prototype, 'buffer').get;
const dataViewOffset = Object.getOwnPropertyDescriptor(DataView.prototype, 'byteOffset').get;
const dataViewLength = Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get;
const subarray = TypedArrayProto.subarray;
const defineProperty = Object.defineProperty;

function isArrayBuffer(v) {
  try {
    ReflectApply(arrayBufferByteLength, v, []);
    return true;
  } catch (e) {
    return false;
  }
}

// bytesOf returns a Uint8Array over the bytes of a BufferSource, or null.
function bytesOf(v) {
  if (isView(v)) {
    if (ReflectApply(typedArrayTag, v, []) !== undefined) {
      return new Uint8ArrayCtor(ReflectApply(typedArrayBuffer, v, []), ReflectApply(typedArrayOffset, v, []),
        ReflectApply(typedArrayLength, v, []));
    }
    return new Uint8ArrayCtor(ReflectApply(dataViewBuffer, v, []), ReflectApply(dataViewOffset, v, []),
      ReflectApply(dataViewLength, v, []));
  }
  if (v !== null && typeof v === 'object' && isArrayBuffer(v)) return new Uint8ArrayCtor(v);
  return null;
}

// utf8Length is the UTF-8 length of s made well-formed (a lone surrogate
// is U+FFFD, 3 bytes).
function utf8Length(s) {
  const n = s.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = ReflectApply(charCodeAt, s, [i]);
    if (c < 0x80) continue;
    if (c < 0x800) { bytes += 1; continue; }
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n) {
      const d = ReflectApply(charCodeAt, s, [i + 1]);
      if (d >= 0xDC00 && d <= 0xDFFF) { bytes += 2; i++; continue; }
    }
    bytes += 2;
  }
  return bytes;
}

// writeUTF8 encodes s from code unit start into out from byte 0 until s
// ends or the next scalar value does not fit; it returns [read, written].
function writeUTF8(s, out) {
  const n = s.length;
  const cap = out.length;
  let i = 0;
  let w = 0;
  while (i < n) {
    let c = ReflectApply(charCodeAt, s, [i]);
    if (c < 0x80) {
      if (w >= cap) break;
      out[w++] = c;
      i++;
      continue;
    }
    let units = 1;
    if (c >= 0xD800 && c <= 0xDFFF) {
      const d = c <= 0xDBFF && i + 1 < n ? ReflectApply(charCodeAt, s, [i + 1]) : 0;
      if (d >= 0xDC00 && d <= 0xDFFF) {
        c = 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00);
        units = 2;
      } else {
        c = 0xFFFD;
      }
    }
    if (c < 0x800) {
      if (w + 2 > cap) break;
      out[w++] = 0xC0 | (c >> 6);
    } else if (c < 0x10000) {
      if (w + 3 > cap) break;
      out[w++] = 0xE0 | (c >> 12);
      out[w++] = 0x80 | ((c >> 6) & 0x3F);
    } else {
      if (w + 4 > cap) break;
      out[w++] = 0xF0 | (c >> 18);
      out[w++] = 0x80 | ((c >> 12) & 0x3F);
      out[w++] = 0x80 | ((c >> 6) & 0x3F);
    }
    out[w++] = 0x80 | (c & 0x3F);
    i += units;
  }
  return [i, w];
}

class TextEncoder {
  get encoding() {
    return 'utf-8';
  }

  // encode returns the UTF-8 bytes of input (a lone surrogate is U+FFFD).
  encode(input = '') {
    const s = StringCtor(input);
    const out = new Uint8ArrayCtor(utf8Length(s));
    writeUTF8(s, out);
    return out;
  }

  // encodeInto writes as many whole characters of source as fit.
  encodeInto(source, destination) {
    const s = StringCtor(source);
    if (!isView(destination) || ReflectApply(typedArrayTag, destination, []) !== 'Uint8Array') {
      throw new TypeErrorCtor('TextEncoder.encodeInto: the destination must be a Uint8Array');
    }
    const r = writeUTF8(s, destination);
    return { read: r[0], written: r[1] };
  }
}

const UTF8_LABELS = ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'];
const UTF16LE_LABELS = ['csunicode', 'iso-10646-ucs-2', 'ucs-2', 'unicode', 'unicodefeff', 'utf-16', 'utf-16le'];
const UTF16BE_LABELS = ['unicodefffe', 'utf-16be'];
const WINDOWS1252_LABELS = ['ansi_x3.4-1968', 'ascii', 'cp1252', 'cp819', 'csisolatin1', 'ibm819', 'iso-8859-1',
  'iso-ir-100', 'iso8859-1', 'iso88591', 'iso_8859-1', 'iso_8859-1:1987', 'l1', 'latin1', 'us-ascii',
  'windows-1252', 'x-cp1252'];
const encodings = new Map();
for (const [name, labels] of [['utf-8', UTF8_LABELS], ['utf-16le', UTF16LE_LABELS], ['utf-16be', UTF16BE_LABELS],
  ['windows-1252', WINDOWS1252_LABELS]]) {
  for (const label of labels) encodings.set(label, name);
}
const mapGet = Map.prototype.get;
const trimLabel = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;
const stringReplace = String.prototype.replace;
const stringToLower = String.prototype.toLowerCase;

// windows-1252 bytes 0x80-0x9F; every other byte is its own code point.
const W1252 = [0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
  0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
  0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178];

const CHUNK = 0x2000;
function unitsToString(units, n) {
  if (n <= CHUNK) return ReflectApply(fromCharCode, undefined, ReflectApply(subarray, units, [0, n]));
  let s = '';
  for (let i = 0; i < n; i += CHUNK) {
    s += ReflectApply(fromCharCode, undefined, ReflectApply(subarray, units, [i, i + CHUNK < n ? i + CHUNK : n]));
  }
  return s;
}

function invalid(encoding) {
  return new TypeErrorCtor('The encoded data was not valid for encoding ' + encoding);
}

class TextDecoder {
  #encoding;
  #fatal;
  #ignoreBOM;
  #bomSeen = false;
  #doNotFlush = false;
  // Decoder state carried between stream calls.
  #needed = 0;
  #seen = 0;
  #codePoint = 0;
  #lower = 0x80;
  #upper = 0xBF;
  #leadByte = -1;
  #leadSurrogate = -1;

  constructor(label = 'utf-8', options = undefined) {
    const key = ReflectApply(stringToLower, ReflectApply(stringReplace, StringCtor(label), [trimLabel, '']), []);
    const encoding = ReflectApply(mapGet, encodings, [key]);
    if (encoding === undefined) {
      throw new RangeErrorCtor('The "' + StringCtor(label) + '" encoding is not supported');
    }
    if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
      throw new TypeErrorCtor('TextDecoder: the options must be an object; got ' + typeof options);
    }
    this.#encoding = encoding;
    this.#fatal = options != null && !!options.fatal;
    this.#ignoreBOM = options != null && !!options.ignoreBOM;
  }

  get encoding() {
    return this.#encoding;
  }

  get fatal() {
    return this.#fatal;
  }

  get ignoreBOM() {
    return this.#ignoreBOM;
  }

  // decode returns the text of input's bytes, keeping an unfinished
  // sequence for the next call when options.stream is true.
  decode(input = undefined, options = undefined) {
    let bytes;
    if (input === undefined) {
      bytes = new Uint8ArrayCtor(0);
    } else {
      bytes = bytesOf(input);
      if (bytes === null) {
        throw new TypeErrorCtor('TextDecoder.decode: the input must be an ArrayBuffer or an ArrayBufferView (a typed array or DataView); got ' +
          (input === null ? 'null' : typeof input));
      }
    }
    if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
      throw new TypeErrorCtor('TextDecoder.decode: the options must be an object; got ' + typeof options);
    }
    if (!this.#doNotFlush) {
      this.#needed = 0; this.#seen = 0; this.#codePoint = 0; this.#lower = 0x80; this.#upper = 0xBF;
      this.#leadByte = -1; this.#leadSurrogate = -1;
      this.#bomSeen = false;
    }
    const stream = options != null && !!options.stream;
    this.#doNotFlush = stream;
    const units = new Uint16ArrayCtor(bytes.length + 4);
    let n;
    switch (this.#encoding) {
      case 'utf-8': n = this.#utf8(bytes, units, !stream); break;
      case 'windows-1252': n = windows1252(bytes, units); break;
      default: n = this.#utf16(bytes, units, !stream, this.#encoding === 'utf-16le');
    }
    let start = 0;
    if (n > 0 && !this.#bomSeen && this.#encoding !== 'windows-1252') {
      this.#bomSeen = true;
      if (!this.#ignoreBOM && units[0] === 0xFEFF) start = 1;
    }
    const s = unitsToString(start === 0 ? units : ReflectApply(subarray, units, [start]), n - start);
    return s;
  }

  // #utf8 is the Encoding Standard's UTF-8 decoder.
  #utf8(bytes, units, flush) {
    const fatal = this.#fatal;
    let needed = this.#needed;
    let seen = this.#seen;
    let cp = this.#codePoint;
    let lower = this.#lower;
    let upper = this.#upper;
    let n = 0;
    const len = bytes.length;
    for (let i = 0; i < len; i++) {
      const b = bytes[i];
      if (needed === 0) {
        if (b < 0x80) {
          units[n++] = b;
        } else if (b >= 0xC2 && b <= 0xDF) {
          needed = 1; cp = b & 0x1F;
        } else if (b >= 0xE0 && b <= 0xEF) {
          if (b === 0xE0) lower = 0xA0;
          if (b === 0xED) upper = 0x9F;
          needed = 2; cp = b & 0xF;
        } else if (b >= 0xF0 && b <= 0xF4) {
          if (b === 0xF0) lower = 0x90;
          if (b === 0xF4) upper = 0x8F;
          needed = 3; cp = b & 0x7;
        } else {
          if (fatal) throw invalid('utf-8');
          units[n++] = 0xFFFD;
        }
        continue;
      }
      if (b < lower || b > upper) {
        cp = 0; needed = 0; seen = 0; lower = 0x80; upper = 0xBF;
        if (fatal) { this.#needed = 0; throw invalid('utf-8'); }
        units[n++] = 0xFFFD;
        i--; // the byte starts over
        continue;
      }
      lower = 0x80; upper = 0xBF;
      cp = (cp << 6) | (b & 0x3F);
      if (++seen !== needed) continue;
      if (cp < 0x10000) {
        units[n++] = cp;
      } else {
        units[n++] = 0xD800 + ((cp - 0x10000) >> 10);
        units[n++] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
      }
      cp = 0; needed = 0; seen = 0;
    }
    if (flush && needed !== 0) {
      cp = 0; needed = 0; seen = 0; lower = 0x80; upper = 0xBF;
      if (fatal) { this.#needed = 0; throw invalid('utf-8'); }
      units[n++] = 0xFFFD;
    }
    this.#needed = needed; this.#seen = seen; this.#codePoint = cp; this.#lower = lower; this.#upper = upper;
    return n;
  }

  // #utf16 is the Encoding Standard's shared UTF-16 decoder.
  #utf16(bytes, units, flush, le) {
    const fatal = this.#fatal;
    const name = le ? 'utf-16le' : 'utf-16be';
    let leadByte = this.#leadByte;
    let leadSurrogate = this.#leadSurrogate;
    let n = 0;
    const len = bytes.length;
    for (let i = 0; i < len; i++) {
      const b = bytes[i];
      if (leadByte < 0) { leadByte = b; continue; }
      const unit = le ? (b << 8) | leadByte : (leadByte << 8) | b;
      leadByte = -1;
      if (leadSurrogate >= 0) {
        const lead = leadSurrogate;
        leadSurrogate = -1;
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
          units[n++] = lead;
          units[n++] = unit;
          continue;
        }
        if (fatal) { this.#leadByte = -1; this.#leadSurrogate = -1; throw invalid(name); }
        units[n++] = 0xFFFD;
      }
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        leadSurrogate = unit;
      } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
        if (fatal) { this.#leadByte = -1; this.#leadSurrogate = -1; throw invalid(name); }
        units[n++] = 0xFFFD;
      } else {
        units[n++] = unit;
      }
    }
    if (flush && (leadByte >= 0 || leadSurrogate >= 0)) {
      leadByte = -1; leadSurrogate = -1;
      if (fatal) { this.#leadByte = -1; this.#leadSurrogate = -1; throw invalid(name); }
      units[n++] = 0xFFFD;
    }
    this.#leadByte = leadByte; this.#leadSurrogate = leadSurrogate;
    return n;
  }
}

function windows1252(bytes, units) {
  const len = bytes.length;
  for (let i = 0; i < len; i++) {
    const b = bytes[i];
    units[i] = b >= 0x80 && b <= 0x9F ? W1252[b - 0x80] : b;
  }
  return len;
}

for (const [name, C] of [['TextEncoder', TextEncoder], ['TextDecoder', TextDecoder]]) {
  defineProperty(C, 'name', { value: name, configurable: true }); // the bundle is minified
  // WebIDL makes a prototype's operations and attributes enumerable
  // (for...in over TextDecoder.prototype lists them, as in Node and
  // browsers); class syntax makes them non-enumerable.
  for (const key of Reflect.ownKeys(C.prototype)) {
    if (key !== 'constructor') defineProperty(C.prototype, key, { enumerable: true });
  }
  defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
  defineProperty(globalThis, name, { value: C, writable: true, enumerable: false, configurable: true });
}
