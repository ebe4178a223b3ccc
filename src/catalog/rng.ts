// Seeded randomness for the demo. sfc32 (Chris Doty-Humphrey's Small Fast Counting generator,
// as in PractRand) seeded from SHA-256 of a name: independent, reproducible streams per purpose
// ("ratings", "schedule:NBA:day 20410", ...), so adding a league or a day never shifts the
// numbers another part of the slate sees.

import { createHash } from 'node:crypto';
import type { Rng } from './types.ts';

export function rngFor(...parts: (string | number)[]): Rng {
  const h = createHash('sha256').update(parts.join(':')).digest();
  let a = h.readUInt32LE(0);
  let b = h.readUInt32LE(4);
  let c = h.readUInt32LE(8);
  let d = h.readUInt32LE(12);
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next(); // warm-up, as the reference implementation does
  return next;
}

/** Integer in [0, n). */
export function randInt(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}

/** Standard normal draw (Box–Muller). */
export function randNormal(rng: Rng): number {
  let u = rng();
  while (u <= Number.EPSILON) u = rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Fisher–Yates shuffle of a copy. */
export function shuffled<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = randInt(rng, i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[randInt(rng, xs.length)]!;
}
