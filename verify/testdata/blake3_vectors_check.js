// Run by blake3js_test.go with node: checks the bundle's BLAKE3 against the
// official test vectors (hash, keyed_hash, derive_key; extended output) and
// against Go-computed digests of inputs fed in uneven pieces.
const B = require(process.argv[2]);
const v = require(process.argv[3]);
const cross = require(process.argv[4]);
const key = new TextEncoder().encode(v.key);
let fails = 0;
function input(n) { const b = new Uint8Array(n); for (let i = 0; i < n; i++) b[i] = i % 251; return b; }
for (const c of v.cases) {
  const data = input(c.input_len), n = c.hash.length / 2;
  const got = {
    hash: B.hex(B.hasher().update(data).digest(n)),
    keyed_hash: B.hex(B.keyedHasher(key).update(data).digest(n)),
    derive_key: B.hex(B.deriveKeyHasher(v.context_string).update(data).digest(n)),
  };
  for (const k of Object.keys(got)) {
    if (got[k] !== c[k]) { fails++; console.log(`FAIL ${k} input_len=${c.input_len}`); }
  }
}
for (const c of cross) {
  const data = input(c.len), h = B.hasher();
  let off = 0, step = 1;
  while (off < data.length) { const e = Math.min(data.length, off + step); h.update(data.subarray(off, e)); off = e; step = (step * 7 + 3) % 1500 + 1; }
  const got = "b3:" + B.hex(h.digest(32));
  if (got !== c.b3) { fails++; console.log(`FAIL cross len=${c.len}`); }
}
console.log(`${v.cases.length} vectors, ${cross.length} cross-checks, ${fails} failures`);
process.exit(fails ? 1 : 0);
