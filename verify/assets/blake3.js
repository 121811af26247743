// BLAKE3 in plain JavaScript, for the in-browser verifier of bundle.html.
// No dependencies, no network. Follows the BLAKE3 reference implementation:
// hash, keyed hash and key derivation, with extendable output.
// Checked against the official test vectors and against the Go side.
"use strict";
var BLAKE3 = (function () {
  var IV = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  var PERM = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
  var CHUNK_START = 1, CHUNK_END = 2, PARENT = 4, ROOT = 8,
    KEYED_HASH = 16, DERIVE_KEY_CONTEXT = 32, DERIVE_KEY_MATERIAL = 64;
  var BLOCK_LEN = 64, CHUNK_LEN = 1024;

  var st = new Uint32Array(16), mw = new Uint32Array(16), tmp = new Uint32Array(16);

  function g(a, b, c, d, x, y) {
    st[a] = (st[a] + st[b] + x) | 0;
    var t = st[d] ^ st[a]; st[d] = (t >>> 16) | (t << 16);
    st[c] = (st[c] + st[d]) | 0;
    t = st[b] ^ st[c]; st[b] = (t >>> 12) | (t << 20);
    st[a] = (st[a] + st[b] + y) | 0;
    t = st[d] ^ st[a]; st[d] = (t >>> 8) | (t << 24);
    st[c] = (st[c] + st[d]) | 0;
    t = st[b] ^ st[c]; st[b] = (t >>> 7) | (t << 25);
  }

  // compress returns the full 16-word output in a new array.
  function compress(cv, block, counter, blockLen, flags) {
    for (var i = 0; i < 8; i++) st[i] = cv[i];
    st[8] = IV[0]; st[9] = IV[1]; st[10] = IV[2]; st[11] = IV[3];
    st[12] = counter % 0x100000000; st[13] = Math.floor(counter / 0x100000000);
    st[14] = blockLen; st[15] = flags;
    for (i = 0; i < 16; i++) mw[i] = block[i];
    for (var r = 0; r < 7; r++) {
      g(0, 4, 8, 12, mw[0], mw[1]); g(1, 5, 9, 13, mw[2], mw[3]);
      g(2, 6, 10, 14, mw[4], mw[5]); g(3, 7, 11, 15, mw[6], mw[7]);
      g(0, 5, 10, 15, mw[8], mw[9]); g(1, 6, 11, 12, mw[10], mw[11]);
      g(2, 7, 8, 13, mw[12], mw[13]); g(3, 4, 9, 14, mw[14], mw[15]);
      if (r < 6) {
        for (i = 0; i < 16; i++) tmp[i] = mw[PERM[i]];
        for (i = 0; i < 16; i++) mw[i] = tmp[i];
      }
    }
    var out = new Uint32Array(16);
    for (i = 0; i < 8; i++) {
      out[i] = st[i] ^ st[i + 8];
      out[i + 8] = st[i + 8] ^ cv[i];
    }
    return out;
  }

  function wordsFromBytes(bytes, off, len, dst) {
    for (var i = 0; i < 16; i++) dst[i] = 0;
    for (i = 0; i < len; i++) dst[i >> 2] |= bytes[off + i] << (8 * (i & 3));
    return dst;
  }

  function Output(cv, block, counter, blockLen, flags) {
    this.cv = cv; this.block = block; this.counter = counter;
    this.blockLen = blockLen; this.flags = flags;
  }
  Output.prototype.chainingValue = function () {
    return compress(this.cv, this.block, this.counter, this.blockLen, this.flags).subarray(0, 8);
  };
  Output.prototype.rootBytes = function (n) {
    var out = new Uint8Array(n), pos = 0, ctr = 0;
    while (pos < n) {
      var w = compress(this.cv, this.block, ctr++, this.blockLen, this.flags | ROOT);
      for (var i = 0; i < 16 && pos < n; i++) {
        for (var j = 0; j < 4 && pos < n; j++) out[pos++] = (w[i] >>> (8 * j)) & 0xff;
      }
    }
    return out;
  };

  function ChunkState(key, counter, flags) {
    this.cv = new Uint32Array(key); this.counter = counter; this.flags = flags;
    this.block = new Uint8Array(BLOCK_LEN); this.blockLen = 0; this.blocksCompressed = 0;
    this.words = new Uint32Array(16);
  }
  ChunkState.prototype.len = function () { return BLOCK_LEN * this.blocksCompressed + this.blockLen; };
  ChunkState.prototype.startFlag = function () { return this.blocksCompressed === 0 ? CHUNK_START : 0; };
  ChunkState.prototype.update = function (input, off, end) {
    while (off < end) {
      if (this.blockLen === BLOCK_LEN) {
        wordsFromBytes(this.block, 0, BLOCK_LEN, this.words);
        var o = compress(this.cv, this.words, this.counter, BLOCK_LEN, this.flags | this.startFlag());
        this.cv = o.subarray(0, 8);
        this.blocksCompressed++;
        this.blockLen = 0;
      }
      var take = Math.min(BLOCK_LEN - this.blockLen, end - off);
      this.block.set(input.subarray(off, off + take), this.blockLen);
      this.blockLen += take; off += take;
    }
  };
  ChunkState.prototype.output = function () {
    var w = wordsFromBytes(this.block, 0, this.blockLen, new Uint32Array(16));
    return new Output(this.cv, w, this.counter, this.blockLen, this.flags | this.startFlag() | CHUNK_END);
  };

  function parentOutput(left, right, key, flags) {
    var w = new Uint32Array(16);
    w.set(left, 0); w.set(right, 8);
    return new Output(key, w, 0, BLOCK_LEN, PARENT | flags);
  }

  function Hasher(key, flags) {
    this.key = key; this.flags = flags;
    this.chunk = new ChunkState(key, 0, flags);
    this.stack = [];
  }
  Hasher.prototype.update = function (input) {
    if (typeof input === "string") input = new TextEncoder().encode(input);
    var off = 0, end = input.length;
    while (off < end) {
      if (this.chunk.len() === CHUNK_LEN) {
        var cv = this.chunk.output().chainingValue();
        var total = this.chunk.counter + 1;
        while ((total & 1) === 0) {
          cv = parentOutput(this.stack.pop(), cv, this.key, this.flags).chainingValue();
          total = total / 2;
        }
        this.stack.push(cv);
        this.chunk = new ChunkState(this.key, this.chunk.counter + 1, this.flags);
      }
      var take = Math.min(CHUNK_LEN - this.chunk.len(), end - off);
      this.chunk.update(input, off, off + take);
      off += take;
    }
    return this;
  };
  Hasher.prototype.digest = function (n) {
    var out = this.chunk.output();
    for (var i = this.stack.length - 1; i >= 0; i--) {
      out = parentOutput(this.stack[i], out.chainingValue(), this.key, this.flags);
    }
    return out.rootBytes(n === undefined ? 32 : n);
  };

  function keyWords(key) {
    if (key.length !== 32) throw new Error("BLAKE3 key must be 32 bytes");
    return wordsFromBytes(key, 0, 32, new Uint32Array(16)).slice(0, 8);
  }

  function hex(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return s;
  }

  return {
    hasher: function () { return new Hasher(IV, 0); },
    keyedHasher: function (key) { return new Hasher(keyWords(key), KEYED_HASH); },
    deriveKeyHasher: function (context) {
      var ctx = new Hasher(IV, DERIVE_KEY_CONTEXT).update(context).digest(32);
      return new Hasher(keyWords(ctx), DERIVE_KEY_MATERIAL);
    },
    hash: function (input, n) { return new Hasher(IV, 0).update(input).digest(n); },
    hex: hex,
    // b3 returns "b3:<64 hex>" as agentlab writes hash ids.
    b3: function (input) { return "b3:" + hex(new Hasher(IV, 0).update(input).digest(32)); }
  };
})();
if (typeof module !== "undefined") module.exports = BLAKE3;
