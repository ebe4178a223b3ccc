// Order id → handle, an open-addressing hash table over one Int32Array (linear probing,
// backward-shift deletion, so no tombstones). Keys are not stored: slot j keeps the key's 32-bit
// hash at `slots[2j]` and handle + 1 at `slots[2j + 1]`, and the key is compared through the order
// pool's id column. Hash and handle share a cache line, so a probe costs one miss (two parallel
// arrays cost two). Measured on the target machine with 150k live ids under churn, the two-array
// version was already 2–4× faster than a Map<string, number> (docs/bench-engine.md).
//
// The engine keeps each resting order's hash in the pool (`hashOf` at insert), so removing an
// order (`deleteHashed`) finds its slot by (hash, handle) without reading the id string again.

export class IdIndex {
  private cap = 1024;
  private mask = 1023;
  /** [hash, handle + 1] per slot; handle + 1 = 0 is an empty slot. */
  private slots = new Int32Array(2048);
  size = 0;

  /** `keys[handle]` is the id of that handle (the pool's id column, shared, never replaced). */
  constructor(private readonly keys: string[]) {}

  /**
   * FNV-1a over the length and the last 16 UTF-16 code units, forced odd. Order ids are UUIDv7
   * minted by the edge, whose last 16 characters hold 48+ random bits; ids that share their tail
   * only make longer probe runs (keys are always compared in full), never wrong answers.
   */
  static hashOf(s: string): number {
    let x = Math.imul(0x811c9dc5 ^ s.length, 0x01000193);
    for (let i = s.length > 16 ? s.length - 16 : 0; i < s.length; i++)
      x = Math.imul(x ^ s.charCodeAt(i), 0x01000193);
    return x | 1;
  }

  private find(s: string, h: number): number {
    const m = this.mask;
    const t = this.slots;
    for (let j = h & m; ; j = (j + 1) & m) {
      const v = t[2 * j + 1]!;
      if (v === 0) return -1;
      if (t[2 * j] === h && this.keys[v - 1] === s) return j;
    }
  }

  /** Handle of `id`, or -1. */
  get(id: string): number {
    return this.getHashed(id, IdIndex.hashOf(id));
  }

  /** Handle of `id` whose hashOf is `h` (computed once by a caller that will also insert it), or -1. */
  getHashed(id: string, h: number): number {
    const j = this.find(id, h);
    return j < 0 ? -1 : this.slots[2 * j + 1]! - 1;
  }

  /** Adds (hashOf(id) = `h`) → handle; the caller guarantees the id is absent. */
  setHashed(h: number, handle: number): void {
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
