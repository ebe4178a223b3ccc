// The ids of the orders a MassQuote rests (docs/exchange.md "Mass quotes"). A command with `idBase`
// carries one id for the whole set: a level that rests a new order takes an id derived from it and
// from the level's place in the command, so the edge mints one id per command instead of one per
// quoted level (most levels keep, shrink or re-queue an order under its own id), and the state
// machine stays deterministic: replay derives the same ids from the journaled command, as fill ids
// derive from their taker order's (docs/decisions.md).

/** Hex digit value by character code (0–127): lower-case digits only, -1 for anything else. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;
/** Two lower-case hex digits of every byte value. */
const HEX2: string[] = Array.from({ length: 256 }, (_, v) => v.toString(16).padStart(2, '0'));

/** The value of the two lower-case hex digits `s` ends with, or -1. */
function lastByte(s: string): number {
  const n = s.length;
  if (n < 2) return -1;
  const hi = s.charCodeAt(n - 2);
  const lo = s.charCodeAt(n - 1);
  if ((hi | lo) >= 128) return -1;
  const x = HEX_VALUE[hi]!;
  const y = HEX_VALUE[lo]!;
  return (x | y) < 0 ? -1 : (x << 4) | y;
}

/** Whether `base` can name a command's new orders: a string ending in two lower-case hex digits. */
export function isIdBase(base: unknown): base is string {
  return typeof base === 'string' && lastByte(base) >= 0;
}

/**
 * The id of the order quoted level `slot` (side × MAX_QUOTE_LEVELS + its index in its outcome's
 * list) rests under, in a command with `idBase`: the base with its last byte XOR the slot. Slots
 * differ below 2 × MAX_QUOTE_LEVELS ≤ 256, so a command's ids differ; ids of two commands differ
 * when their bases differ in anything but the last byte, which a UUIDv7 the edge mints does (its
 * time and counter, RFC 9562 §6.2). Slot 0 is the base itself. A function of the command alone, so
 * replay derives the same ids.
 */
export function quotedId(base: string, slot: number): string {
  if (slot === 0) return base;
  return base.slice(0, base.length - 2) + HEX2[lastByte(base) ^ slot]!;
}
