// Order id → handle, an open-addressing hash table over one Int32Array (linear probing,
// backward-shift deletion, so no tombstones). Keys are not stored: slot j keeps the key's 32-bit
// hash at `slots[2j]` and handle + 1 at `slots[2j + 1]`, and the key is compared through the order
// pool's id slots. Hash and handle share a cache line, so a probe costs one miss (two parallel
// arrays cost two). Measured on the target machine with 150k live ids under churn, the two-array
// version was already 2–4× faster than a Map<string, number> (docs/bench-engine.md).
//
// Ids are kept in the pool, not as strings (order-pool.ts): a canonical lowercase UUID — what the
// edge mints — as four Int32 words (parsed once per placement or cancel, formatted back only when a
// record or event needs the string), any other string as it is (`strIds`, ID_STR). One string has
// exactly one form, so comparing words or strings is comparing ids. The engine keeps each resting
// order's hash in the pool (I_HASH), so removing an order (`deleteHashed`) finds its slot by
// (hash, handle) without reading the id again.

import { I_HASH, I_ID, I_TIF, ID_STR, IW, type OrderPool } from './order-pool.ts';

/** Hex digit value by character code (0–127), -1 for anything else (upper case included: a
 * canonical UUID is lower case, so it formats back to the very same string). */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;
const HEX_CHAR = new Uint8Array([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102]);
const DASH = 45;

/** Value of the 4 hex digits of `s` from `at` (0–65535), or -1 when one is not a lower-case hex
 * digit. */
function hex4(s: string, at: number): number {
  const a = s.charCodeAt(at);
  const b = s.charCodeAt(at + 1);
  const c = s.charCodeAt(at + 2);
  const d = s.charCodeAt(at + 3);
  if ((a | b | c | d) >= 128) return -1;
  const x = HEX[a]!;
  const y = HEX[b]!;
  const z = HEX[c]!;
  const w = HEX[d]!;
  if ((x | y | z | w) < 0) return -1;
  return (x << 12) | (y << 8) | (z << 4) | w;
}

/** murmur3's fmix32 over four words: every input bit reaches the low bits the table masks. */
function mix(a: number, b: number, c: number, d: number): number {
  let x = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13) ^ b, 0xc2b2ae35);
  x = Math.imul(x ^ (x >>> 16) ^ c, 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13) ^ d, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/** The canonical UUID string of four words: one call of String.fromCharCode with every character
 * as an argument builds a flat one-byte string at once (~4× faster on this machine than filling a
 * byte buffer and decoding it, which matters: every maker fill formats its order's id). */
function uuidOf(a: number, b: number, c: number, d: number): string {
  const X = HEX_CHAR;
  return String.fromCharCode(
    X[a >>> 28]!,
    X[(a >>> 24) & 15]!,
    X[(a >>> 20) & 15]!,
    X[(a >>> 16) & 15]!,
    X[(a >>> 12) & 15]!,
    X[(a >>> 8) & 15]!,
    X[(a >>> 4) & 15]!,
    X[a & 15]!,
    DASH,
    X[b >>> 28]!,
    X[(b >>> 24) & 15]!,
    X[(b >>> 20) & 15]!,
    X[(b >>> 16) & 15]!,
    DASH,
    X[(b >>> 12) & 15]!,
    X[(b >>> 8) & 15]!,
    X[(b >>> 4) & 15]!,
    X[b & 15]!,
    DASH,
    X[c >>> 28]!,
    X[(c >>> 24) & 15]!,
    X[(c >>> 20) & 15]!,
    X[(c >>> 16) & 15]!,
    DASH,
    X[(c >>> 12) & 15]!,
    X[(c >>> 8) & 15]!,
    X[(c >>> 4) & 15]!,
    X[c & 15]!,
    X[d >>> 28]!,
    X[(d >>> 24) & 15]!,
    X[(d >>> 20) & 15]!,
    X[(d >>> 16) & 15]!,
    X[(d >>> 12) & 15]!,
    X[(d >>> 8) & 15]!,
    X[(d >>> 4) & 15]!,
    X[d & 15]!,
  );
}

export class IdIndex {
  private cap = 1024;
  private mask = 1023;
  /** [hash, handle + 1] per slot; handle + 1 = 0 is an empty slot. */
  private slots = new Int32Array(2048);
  size = 0;
  // The key of the last `key()` call: four words, or the string itself (str !== null).
  private k0 = 0;
  private k1 = 0;
  private k2 = 0;
  private k3 = 0;
  private str: string | null = null;

  /** The pool whose id slots hold the keys (its arrays are read afresh: they grow). */
  constructor(private readonly pool: OrderPool) {}

  /** FNV-1a over the length and the last 16 UTF-16 code units, mixed (ids that are not UUIDs). */
  static hashString(s: string): number {
    let x = Math.imul(0x811c9dc5 ^ s.length, 0x01000193);
    for (let i = s.length > 16 ? s.length - 16 : 0; i < s.length; i++)
      x = Math.imul(x ^ s.charCodeAt(i), 0x01000193);
    return mix(x, s.length, 0, 0);
  }

  /**
   * Parses `id` as the current key and returns its hash: a canonical UUID
   * (8-4-4-4-12 lower-case hex) becomes four words, anything else stays a string.
   */
  key(id: string): number {
    if (
      id.length === 36 &&
      id.charCodeAt(8) === DASH &&
      id.charCodeAt(13) === DASH &&
      id.charCodeAt(18) === DASH &&
      id.charCodeAt(23) === DASH
    ) {
      const a1 = hex4(id, 0);
      const a2 = hex4(id, 4);
      const b1 = hex4(id, 9);
      const b2 = hex4(id, 14);
      const c1 = hex4(id, 19);
      const c2 = hex4(id, 24);
      const d1 = hex4(id, 28);
      const d2 = hex4(id, 32);
      if ((a1 | a2 | b1 | b2 | c1 | c2 | d1 | d2) >= 0) {
        this.k0 = (a1 << 16) | a2;
        this.k1 = (b1 << 16) | b2;
        this.k2 = (c1 << 16) | c2;
        this.k3 = (d1 << 16) | d2;
        this.str = null;
        return mix(this.k3, this.k2, this.k1, this.k0);
      }
    }
    this.str = id;
    return IdIndex.hashString(id);
  }

  /** Handle of the current key, whose hash is `h`, or -1. */
  findKey(h: number): number {
    const m = this.mask;
    const t = this.slots;
    const p = this.pool.i32;
    const str = this.str;
    for (let j = h & m; ; j = (j + 1) & m) {
      const v = t[2 * j + 1]!;
      if (v === 0) return -1;
      if (t[2 * j] !== h) continue;
      const o = (v - 1) * IW;
      if (str === null) {
        if (
          (p[o + I_TIF]! & ID_STR) === 0 &&
          p[o + I_ID] === this.k0 &&
          p[o + I_ID + 1] === this.k1 &&
          p[o + I_ID + 2] === this.k2 &&
          p[o + I_ID + 3] === this.k3
        )
          return v - 1;
      } else if ((p[o + I_TIF]! & ID_STR) !== 0 && this.pool.strIds.get(v - 1) === str) return v - 1;
    }
  }

  /** Handle of `id`, or -1. */
  get(id: string): number {
    return this.findKey(this.key(id));
  }

  /**
   * Stores the current key (hash `h`, from the last `key()`, absent from the index) as the id of
   * `handle` and indexes it. The caller has set I_TIF already; ID_STR is added here.
   */
  insertKey(h: number, handle: number): void {
    const p = this.pool.i32;
    const o = handle * IW;
    p[o + I_HASH] = h;
    if (this.str === null) {
      p[o + I_ID] = this.k0;
      p[o + I_ID + 1] = this.k1;
      p[o + I_ID + 2] = this.k2;
      p[o + I_ID + 3] = this.k3;
    } else {
      p[o + I_TIF]! |= ID_STR;
      this.pool.strIds.set(handle, this.str);
    }
    this.setHashed(h, handle);
  }

  /** The id string of a live handle. */
  idOf(handle: number): string {
    const p = this.pool.i32;
    const o = handle * IW;
    if ((p[o + I_TIF]! & ID_STR) !== 0) return this.pool.strIds.get(handle)!;
    return uuidOf(p[o + I_ID]!, p[o + I_ID + 1]!, p[o + I_ID + 2]!, p[o + I_ID + 3]!);
  }

  /** Adds (hash `h`) → handle; the caller guarantees the key is absent. */
  private setHashed(h: number, handle: number): void {
    if ((this.size + 1) * 2 > this.cap) this.grow();
    const m = this.mask;
    const t = this.slots;
    let j = h & m;
    while (t[2 * j + 1] !== 0) j = (j + 1) & m;
    t[2 * j] = h;
    t[2 * j + 1] = handle + 1;
    this.size++;
  }

  private grow(): void {
    const o = this.slots;
    this.cap *= 2;
    this.mask = this.cap - 1;
    const t = new Int32Array(2 * this.cap);
    const m = this.mask;
    for (let i = 0; i < o.length; i += 2) {
      if (o[i + 1] === 0) continue;
      let j = o[i]! & m;
      while (t[2 * j + 1] !== 0) j = (j + 1) & m;
      t[2 * j] = o[i]!;
      t[2 * j + 1] = o[i + 1]!;
    }
    this.slots = t;
  }

  /** Removes the entry of `handle`, whose id hashed to `h`; false when it is not there. */
  deleteHashed(h: number, handle: number): boolean {
    const m = this.mask;
    const t = this.slots;
    for (let j = h & m; ; j = (j + 1) & m) {
      const v = t[2 * j + 1];
      if (v === 0) return false;
      if (v === handle + 1) {
        this.removeAt(j);
        return true;
      }
    }
  }

  private removeAt(hole: number): void {
    this.size--;
    const m = this.mask;
    const t = this.slots;
    let i = hole;
    // Backward-shift: pull later entries of the probe run into the hole when their home slot
    // does not lie cyclically in (hole, position].
    let j = i;
    for (;;) {
      t[2 * i + 1] = 0;
      for (;;) {
        j = (j + 1) & m;
        if (t[2 * j + 1] === 0) return;
        const home = t[2 * j]! & m;
        const stays = i <= j ? i < home && home <= j : i < home || home <= j;
        if (!stays) break;
      }
      t[2 * i] = t[2 * j]!;
      t[2 * i + 1] = t[2 * j + 1]!;
      i = j;
    }
  }
}
