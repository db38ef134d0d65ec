/**
 * CRC-32 (the gzip trailer's, zlib's `crc32`) of a concatenation from the CRCs of its parts, as zlib's
 * `crc32_combine_gen` / `crc32_combine_op` do it: appending `length` bytes multiplies the first part's CRC by
 * x^(8·length) modulo the CRC polynomial. That factor (the "shift") is worked out once per part, in about
 * log2(length) steps; combining with it is then one multiplication, at most 32 shifts and XORs, with no look at the
 * bytes. So a text sent to many clients is hashed once, and each client's running CRC follows it cheaply.
 */

/** The CRC-32 polynomial, bit-reflected (x^0 is the top bit). */
const POLY = 0xedb88320;

/** a·b modulo the polynomial (both bit-reflected). */
function multiply(a: number, b: number): number {
  let product = 0;
  for (let m = 0x80000000; m !== 0 && a !== 0; m >>>= 1) {
    if ((a & m) !== 0) {
      product ^= b;
      a ^= m;
    }
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0..31: squares of x, one after the other. */
const X_TO_2_TO: readonly number[] = (() => {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  for (let k = 0; k < 32; k++) {
    table.push(p);
    p = multiply(p, p);
  }
  return table;
})();

/** The factor that shifts a CRC over `length` more bytes: x^(8·length) modulo the polynomial. */
export function crc32Shift(length: number): number {
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`not a byte count: ${length}`);
  let p = 0x80000000; // x^0
  // 8·length = length·2^3: walk the bits of length from k = 3 (x^(2^32) = x, so the table repeats every 32).
  for (let n = length, k = 3; n > 0; n = Math.floor(n / 2), k++) {
    if (n % 2 === 1) p = multiply(X_TO_2_TO[k & 31]!, p);
  }
  return p;
}

/** The CRC-32 of A followed by B, from A's CRC, B's CRC and `crc32Shift(B's length)`. */
export function crc32Combine(crcA: number, crcB: number, shiftB: number): number {
  return (multiply(shiftB, crcA) ^ crcB) >>> 0;
}
