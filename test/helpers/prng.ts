// The tests' and benchmarks' seeded PRNG (mulberry32): the same numbers on every run and machine,
// no clock or Math.random. One copy for every workload generator. (The product's own seeded
// randomness is src/catalog/rng.ts.)

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
