// Log lines gathered in front of a synchronous destination (src/start/log-output.ts).
//
// sonic-boom can batch by itself (`minLength`), but it measures the batch's UTF-8 length on every
// write: the batch is a string grown by `+=`, so V8 flattens it again each time and a line cost a
// copy of the whole pending batch — about 2 µs per line at 8 KiB, as much as the rest of the access
// log (docs/http.md, "Access log and request ids"). Here a line costs a string append; the
// destination (sonic-boom, synchronous, no minLength of its own, so it keeps its EAGAIN retries
// and partial-write handling) sees one write per batch.

/** What the batch writes into: a synchronous destination such as pino.destination({ sync: true }). */
export interface SyncDestination {
  write(chunk: string): unknown;
  flushSync(): void;
}

export class LineBatch {
  #pending = '';
  #timer: NodeJS.Timeout | undefined;
  readonly #flushTimed = (): void => {
    this.#timer = undefined;
    this.#drain();
  };

  constructor(
    private readonly dest: SyncDestination,
    /** Characters gathered before a write (one character is at least one byte). */
    private readonly batchChars: number,
    /** The longest a line waits. */
    private readonly flushMs: number,
  ) {}

  /** pino's stream interface: one serialized line, newline included. */
  write(line: string): boolean {
    // A string's length is kept by V8 (no flattening), unlike its UTF-8 byte length.
    this.#pending += line;
    if (this.#pending.length >= this.batchChars) this.#drain();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(this.#flushTimed, this.flushMs);
      this.#timer.unref();
    }
    return true;
  }

  /** Writes what is pending and flushes the destination (pino's flush, process exit). */
  flushSync(): void {
    this.#drain();
    this.dest.flushSync();
  }

  flush(cb?: (err?: Error) => void): void {
    try {
      this.flushSync();
    } catch (err) {
      cb?.(err as Error);
      return;
    }
    cb?.();
  }

  #drain(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = '';
    this.dest.write(batch);
  }
}
