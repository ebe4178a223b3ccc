// Frames serialized on first read (docs/stream.md "Resume and retention"). Every accepted command's
// frames are retained for resume whether or not anyone is subscribed, but most are never read: on
// an order-entry server nobody may follow the tape, and a trader's private frames are read only
// while it is connected or when it resumes. Building them eagerly (the records, ISO dates, JSON)
// cost about a tenth of an order's CPU for nobody. So a builder captures at apply time what it
// needs of the state right after the command (a market's volume, a book's seq: the state moves
// on) and leaves the rest — records out of the command's own events, which never change — to a
// function called once, when a subscriber is sent the frames or a resume reaches them.

/** Frames of one command for one log: serialized, or serialized on first read. */
export type Frames = readonly string[] | LazyFrames;

export class LazyFrames implements Iterable<string> {
  private built: string[] | undefined;
  private make: (() => string[]) | undefined;

  /**
   * @param count how many frames `make` returns (retention counts frames before they exist).
   * @param estimate the bytes of their text, for the retention charge until they are built.
   * @param make the builder; a subclass that overrides `build` passes none. Every command's frames
   *   are held for resume, so the builders made per order (frames.ts, private-frames.ts) keep their
   *   inputs as fields of a subclass rather than in a closure and its context: two objects fewer
   *   per frame list, allocated and then kept by retention.
   */
  constructor(
    readonly count: number,
    readonly estimate: number,
    make?: () => string[],
  ) {
    this.make = make;
  }

  /** Makes the frames (once). */
  protected build(): string[] {
    return this.make!();
  }

  /** Lets go of what `build` needed, once the frames exist. */
  protected release(): void {
    this.make = undefined;
  }

  /** The frames, built now if this is the first read (the builder is let go then). */
  get frames(): string[] {
    if (this.built === undefined) {
      this.built = this.build();
      this.release();
    }
    return this.built;
  }

  get isBuilt(): boolean {
    return this.built !== undefined;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.frames[Symbol.iterator]();
  }
}

/** The text of `f`, built if it was not yet. */
export const framesOf = (f: Frames): readonly string[] => (f instanceof LazyFrames ? f.frames : f);

/** How many frames `f` holds, without building them. */
export const countOf = (f: Frames): number => (f instanceof LazyFrames ? f.count : f.length);

/** Bytes of the frames' text: exact once built, else the builder's estimate. */
export function textBytes(f: Frames): number {
  if (f instanceof LazyFrames && !f.isBuilt) return f.estimate;
  let n = 0;
  for (const s of framesOf(f)) n += s.length;
  return n;
}

/** Several commands' or books' frames as one list, still unbuilt when every part is. */
export function concatFrames(parts: readonly Frames[]): Frames {
  if (parts.length === 1) return parts[0]!;
  let count = 0;
  let estimate = 0;
  for (const p of parts) {
    count += countOf(p);
    estimate += textBytes(p);
  }
  return new LazyFrames(count, estimate, () => {
    const out: string[] = [];
    for (const p of parts) for (const s of framesOf(p)) out.push(s);
    return out;
  });
}
