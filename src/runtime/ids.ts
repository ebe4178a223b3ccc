// UUIDv7 (RFC 9562 §5.7): 48-bit Unix milliseconds, then random bits, so ids sort by creation time
// (orders, fills and history rows page in time order without a separate index on time).

import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;
let lastMs = 0;
let seq = 0;

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;
const text = Buffer.alloc(36);

export function uuidv7(now: number = Date.now()): string {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const b = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  // Monotonic within one millisecond: a 12-bit counter in rand_a (RFC 9562 §6.2 method 1).
  if (now <= lastMs) {
    seq = (seq + 1) & 0xfff;
    if (seq === 0) lastMs += 1;
    now = lastMs;
  } else {
    lastMs = now;
    seq = b[6]! & 0x07; // start low so the counter has room
  }
  b[0] = Math.floor(now / 2 ** 40) & 0xff;
  b[1] = Math.floor(now / 2 ** 32) & 0xff;
  b[2] = (now >>> 24) & 0xff;
  b[3] = (now >>> 16) & 0xff;
  b[4] = (now >>> 8) & 0xff;
  b[5] = now & 0xff;
  b[6] = 0x70 | ((seq >>> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = (b[8]! & 0x3f) | 0x80;
  // Hex digits go into one reused 36-byte buffer, decoded once: the result is a flat string.
  // Concatenating 20 pieces made a cons-string tree that every later reader (the engine's id
  // hash, Map keys, JSON.stringify) had to flatten first, about a quarter of the engine's time
  // per order (docs/bench-engine.md).
  let o = 0;
  for (let i = 0; i < 16; i++) {
    const v = b[i]!;
    text[o++] = HEX_DIGITS[v >>> 4]!;
    text[o++] = HEX_DIGITS[v & 15]!;
    if (i === 3 || i === 5 || i === 7 || i === 9) text[o++] = DASH;
  }
  return text.toString('latin1', 0, 36);
}
