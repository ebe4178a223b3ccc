// The embedded store's journal: append-only segment files of CRC'd, seq-numbered records
// (record-format.ts) with fdatasync per group commit (docs/journal.md, "Segment files").
//
// Durability: append() writes the batch's bytes at once (into the page cache) and resolves only
// after an fdatasync that started after that write has returned. Up to two syncs overlap: a batch
// appended while one sync runs starts its own at once (the kernel chains it behind the first)
// instead of waiting for the first to return to this thread; batches appended while two run are
// covered together by the next one. Syncs complete in the order they started, so the durable seq
// only moves forward over syncs that have all returned. A failed sync is final (after a failed
// fsync the kernel may have dropped the dirty pages, so retrying could report success for lost
// data): every waiting and later append is rejected, and the sequencer stops.
//
// Recovery (open): every segment is read and every record's CRC and seq checked. At the first bad
// record E: if some later valid record was written when E was already durable (its durable-seq
// field >= E), E was synced and then damaged — a hard error; otherwise E and everything after it
// never finished being written (a torn tail after power loss): it is truncated away, durably,
// and never applied.

import { createHash } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';
import type { JournalBackend } from './backend.ts';
import { type JournalFs, nodeJournalFs, pathIn } from './journal-fs.ts';
import type { JournalRow, SnapshotRow } from './journal-store.ts';
import { decodeRecord, encodeForWrite, findLaterDurableClaim, HEADER_BYTES } from './record-format.ts';

export class JournalCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JournalCorruptError';
  }
}

export interface FileJournalOptions {
  fs?: JournalFs;
  /** A segment is closed and a new one started once it holds this many bytes. */
  segmentBytes?: number;
  /** Snapshot bytes written per turn of the event loop. */
  snapshotChunkBytes?: number;
}

/** What recovery cut from the tail (a write that never completed), if anything. */
export interface CutTail {
  seq: number;
  segment: string;
  offset: number;
  bytes: number;
}

interface Segment {
  name: string;
  firstSeq: number;
  /** firstSeq - 1 when empty. */
  lastSeq: number;
  size: number;
}

interface Waiter {
  lastSeq: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Syncs allowed to overlap (see the header). */
const MAX_SYNCS = 2;
const SEGMENT_RE = /^journal-(\d{20})\.seg$/;
const SNAPSHOT_RE = /^snapshot-(\d{20})-([0-9a-f]{64})\.snap$/;
const SNAPSHOT_MAGIC = Buffer.from('TBSNAP01');
const segName = (firstSeq: number) => `journal-${String(firstSeq).padStart(20, '0')}.seg`;
const snapName = (seq: number, hash: string) => `snapshot-${String(seq).padStart(20, '0')}-${hash}.snap`;

/** SHA-256 of bytes, hashed in chunks with a turn of the event loop between them. */
export async function sha256Chunked(bytes: Uint8Array, chunk = 1 << 20): Promise<string> {
  const h = createHash('sha256');
  for (let off = 0; off < bytes.length; off += chunk) {
    h.update(bytes.subarray(off, Math.min(bytes.length, off + chunk)));
    if (off + chunk < bytes.length) await turn();
  }
  return h.digest('hex');
}

export class FileJournal implements JournalBackend {
  readonly kind = 'file' as const;
  private readonly fs: JournalFs;
  private readonly segmentBytes: number;
  private readonly chunkBytes: number;
  private nextSeq: number;
  private lastTs: number;
  private durable: number;
  private handle: number | undefined;
  /** Handles of closed segments still holding unsynced bytes (synced by the next sync). */
  private sealing: number[] = [];
  private dirDirty = false;
  /** Syncs started and not yet completed (at most MAX_SYNCS). */
  private syncs = 0;
  /** Highest seq covered by a started sync. */
  private syncStarted: number;
  /**
   * Settles when the newest started sync and every one before it have settled (and their sealed
   * segments are closed); never rejects.
   */
  private syncChain: Promise<unknown> = Promise.resolve();
  private waiters: Waiter[] = [];
  private failed: Error | undefined;
  private cache: { index: number; buf: Buffer } | undefined;
  private cursor: { seq: number; index: number; off: number } | undefined;

  private constructor(
    readonly dir: string,
    private readonly segments: Segment[],
    tail: { seq: number; ts: number },
    readonly cutTail: CutTail | undefined,
    options: FileJournalOptions,
  ) {
    this.fs = options.fs ?? nodeJournalFs;
    this.segmentBytes = options.segmentBytes ?? 64 * 1024 * 1024;
    this.chunkBytes = options.snapshotChunkBytes ?? 1 << 20;
    this.nextSeq = tail.seq + 1;
    this.lastTs = tail.ts;
    this.durable = tail.seq;
    this.syncStarted = tail.seq;
  }

  /** Opens (creating) the journal directory and recovers its tail (see the header). */
  static async open(dir: string, options: FileJournalOptions = {}): Promise<FileJournal> {
    const fs = options.fs ?? nodeJournalFs;
    fs.mkdir(dir);
    const names = fs.list(dir);
    for (const n of names) if (n.endsWith('.tmp')) fs.remove(pathIn(dir, n)); // unfinished snapshot
    const segNames = names.filter((n) => SEGMENT_RE.test(n)).sort();
    const segments: Segment[] = [];
    let tail = { seq: 0, ts: 0 };
    let cut: CutTail | undefined;
    let expected: number | undefined;
    for (let i = 0; i < segNames.length && cut === undefined; i++) {
      const name = segNames[i]!;
      const firstSeq = Number(SEGMENT_RE.exec(name)![1]);
      if (expected !== undefined && firstSeq !== expected) {
        throw new JournalCorruptError(
          `journal segment ${name} starts at seq ${firstSeq}, but the previous segment ends at ${expected - 1}: a segment is missing`,
        );
      }
      const buf = fs.read(pathIn(dir, name));
      let seq = firstSeq;
      let off = 0;
      let lastPayload: Uint8Array | undefined;
      while (off < buf.length) {
        const r = decodeRecord(buf, off);
        if (r !== undefined && r.seq === seq) {
          lastPayload = r.payload;
          seq++;
          off = r.end;
          continue;
        }
        if (r !== undefined) {
          throw new JournalCorruptError(
            `journal segment ${name} offset ${off}: record has seq ${r.seq}, expected ${seq} (valid CRC): the journal is not one sequence`,
          );
        }
        // A bad record at `seq`: a torn tail, or damage to synced data (see the header).
        const claim =
          findLaterDurableClaim(buf, off + 1, seq) ?? laterClaim(fs, dir, segNames.slice(i + 1), seq);
        if (claim !== undefined) {
          throw new JournalCorruptError(
            `journal segment ${name} offset ${off}: record seq ${seq} fails its CRC, but a later record (seq ${claim.seq}) was written after seq ${seq} was durable: the journal is damaged in the middle; restore the data directory from a copy`,
          );
        }
        cut = { seq, segment: name, offset: off, bytes: buf.length - off };
        await fs.truncate(pathIn(dir, name), off);
        for (const later of segNames.slice(i + 1)) fs.remove(pathIn(dir, later));
        await fs.syncDir(dir);
        break;
      }
      segments.push({ name, firstSeq, lastSeq: seq - 1, size: off });
      if (lastPayload !== undefined) {
        tail = {
          seq: seq - 1,
          ts: (JSON.parse(Buffer.from(lastPayload).toString('utf8')) as { ts: number }).ts,
        };
      } else if (seq - 1 > tail.seq) {
        tail = { seq: seq - 1, ts: tail.ts };
      }
      expected = seq;
    }
    // A journal pruned down to an empty segment still knows where it was.
    if (segments.length > 0) {
      const last = segments[segments.length - 1]!;
      if (last.lastSeq > tail.seq) tail = { seq: last.lastSeq, ts: tail.ts };
    }
    return new FileJournal(dir, segments, tail, cut, options);
  }

  /** Highest seq whose fdatasync has returned. */
  get durableSeq(): number {
    return this.durable;
  }

  append(firstSeq: number, cmds: readonly { ts: number }[], texts?: readonly string[]): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    if (cmds.length === 0) return Promise.resolve();
    if (firstSeq !== this.nextSeq) {
      return Promise.reject(
        new Error(`journal append at seq ${firstSeq}, but the next seq is ${this.nextSeq}`),
      );
    }
    try {
      const payloads = texts ?? cmds.map((c) => JSON.stringify(c));
      const bytes = encodeForWrite(firstSeq, this.durable, payloads);
      const h = this.activeHandle(firstSeq);
      this.fs.append(h, bytes);
      const seg = this.segments[this.segments.length - 1]!;
      seg.size += bytes.length;
      seg.lastSeq = firstSeq + cmds.length - 1;
    } catch (err) {
      // A failed write leaves the file in an unknown state: nothing more may be appended.
      this.fail(err);
      return Promise.reject(this.failed);
    }
    this.nextSeq = firstSeq + cmds.length;
    this.lastTs = cmds[cmds.length - 1]!.ts;
    const lastSeq = this.nextSeq - 1;
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ lastSeq, resolve, reject });
      this.kickSync();
    });
  }

  private activeHandle(firstSeq: number): number {
    const last = this.segments[this.segments.length - 1];
    if (this.handle !== undefined && last !== undefined && last.size < this.segmentBytes) return this.handle;
    if (this.handle === undefined && last !== undefined && last.size < this.segmentBytes) {
      this.handle = this.fs.open(pathIn(this.dir, last.name));
      return this.handle;
    }
    // Rotate: the full segment's unsynced bytes are synced by the next sync; the new file's
    // directory entry is made durable by it too (syncDir) before any of its records is acked.
    if (this.handle !== undefined) this.sealing.push(this.handle);
    const name = segName(firstSeq);
    this.segments.push({ name, firstSeq, lastSeq: firstSeq - 1, size: 0 });
    this.handle = this.fs.open(pathIn(this.dir, name));
    this.dirDirty = true;
    return this.handle;
  }

  private kickSync(): void {
    const upTo = this.nextSeq - 1;
    if (this.syncs >= MAX_SYNCS || upTo <= this.syncStarted || this.failed !== undefined) return;
    this.syncs++;
    this.syncStarted = upTo;
    const sealing = this.sealing.splice(0);
    const dir = this.dirDirty;
    this.dirDirty = false;
    const h = this.handle!;
    const own = (async () => {
      for (const s of sealing) await this.fs.datasync(s);
      await this.fs.datasync(h);
      if (dir) await this.fs.syncDir(this.dir);
    })();
    // In start order: a later sync may return first (and a rotated segment is synced by the
    // earlier one only), so nothing is acknowledged until every earlier sync has returned too.
    const before = this.syncChain;
    const done = Promise.all([before, own]);
    // A sealed segment is closed only once this sync and every one started before it have
    // settled: an earlier sync may still be about to fdatasync that very handle (it was the live
    // segment when that sync started), and a closed descriptor could be reused by the next open.
    this.syncChain = Promise.allSettled([before, own]).then(() => {
      for (const s of sealing) {
        try {
          this.fs.close(s);
        } catch {
          // A close failing after its sync settled loses nothing: the sync decided durability.
        }
      }
    });
    done.then(
      () => {
        this.syncs--;
        if (this.failed !== undefined) return;
        if (upTo > this.durable) this.durable = upTo;
        const ready = this.waiters.filter((w) => w.lastSeq <= upTo);
        this.waiters = this.waiters.filter((w) => w.lastSeq > upTo);
        for (const w of ready) w.resolve();
        this.kickSync();
      },
      (err) => {
        this.syncs--;
        this.fail(err);
      },
    );
  }

  private fail(err: unknown): void {
    if (this.failed !== undefined) return;
    this.failed = new Error(
      `journal write or fdatasync failed; nothing after seq ${this.durable} is durable`,
      {
        cause: err,
      },
    );
    for (const w of this.waiters.splice(0)) w.reject(this.failed);
  }

  async read<C>(afterSeq: number, limit: number, toSeq?: number): Promise<JournalRow<C>[]> {
    const end = Math.min(toSeq ?? Number.MAX_SAFE_INTEGER, afterSeq + limit, this.nextSeq - 1);
    const out: JournalRow<C>[] = [];
    let seq = afterSeq + 1;
    if (seq > end) return out;
    let index = this.segments.findIndex((s) => s.firstSeq <= seq && seq <= s.lastSeq);
    if (index < 0) {
      if (this.segments.length > 0 && seq < this.segments[0]!.firstSeq) {
        throw new JournalCorruptError(
          `journal records before seq ${this.segments[0]!.firstSeq} were pruned; seq ${seq} is not available`,
        );
      }
      return out; // past the end
    }
    let off = 0;
    const c = this.cursor;
    if (c !== undefined && c.seq === seq && c.index === index) off = c.off;
    else {
      // Walk the segment's headers up to seq (record lengths only, no CRC).
      const buf = this.segmentBuffer(index);
      for (let s = this.segments[index]!.firstSeq; s < seq; s++) off += HEADER_BYTES + buf.readUInt32LE(off);
    }
    while (seq <= end) {
      const seg = this.segments[index]!;
      if (seq > seg.lastSeq) {
        index++;
        off = 0;
        if (index >= this.segments.length) break;
        continue;
      }
      const buf = this.segmentBuffer(index);
      const r = decodeRecord(buf, off);
      if (r === undefined || r.seq !== seq) {
        throw new JournalCorruptError(
          `journal segment ${seg.name} offset ${off}: record seq ${seq} is damaged`,
        );
      }
      const cmd = JSON.parse(buf.toString('utf8', off + HEADER_BYTES, r.end)) as C;
      out.push({ seq, ts: (cmd as { ts: number }).ts, cmd });
      off = r.end;
      seq++;
    }
    this.cursor = { seq, index, off };
    return out;
  }

  private segmentBuffer(index: number): Buffer {
    const seg = this.segments[index]!;
    if (this.cache !== undefined && this.cache.index === index && this.cache.buf.length >= seg.size) {
      return this.cache.buf;
    }
    const buf = this.fs.read(pathIn(this.dir, seg.name));
    this.cache = { index, buf };
    return buf;
  }

  async tail(): Promise<{ seq: number; ts: number }> {
    return { seq: this.nextSeq - 1, ts: this.lastTs };
  }

  /**
   * Writes the snapshot beside the journal: a temporary file filled in chunks (one turn of the
   * event loop between chunks, so requests keep being served), fdatasync'd, renamed into place,
   * the directory synced; then all but the newest `keep` are removed.
   */
  async writeSnapshot(snap: SnapshotRow, keep = 2): Promise<void> {
    const final = snapName(snap.seq, snap.hash);
    const tmp = pathIn(this.dir, `${final}.tmp`);
    this.fs.remove(tmp);
    const h = this.fs.open(tmp);
    try {
      this.fs.append(h, SNAPSHOT_MAGIC);
      for (let off = 0; off < snap.state.length; off += this.chunkBytes) {
        this.fs.append(h, snap.state.subarray(off, Math.min(snap.state.length, off + this.chunkBytes)));
        await turn();
      }
      await this.fs.datasync(h);
    } finally {
      this.fs.close(h);
    }
    this.fs.rename(tmp, pathIn(this.dir, final));
    await this.fs.syncDir(this.dir);
    const all = this.snapshotFiles();
    for (const old of all.slice(keep)) this.fs.remove(pathIn(this.dir, old.name));
  }

  private snapshotFiles(): { name: string; seq: number; hash: string }[] {
    return this.fs
      .list(this.dir)
      .map((name) => {
        const m = SNAPSHOT_RE.exec(name);
        return m ? { name, seq: Number(m[1]), hash: m[2]! } : undefined;
      })
      .filter((x) => x !== undefined)
      .sort((a, b) => b.seq - a.seq);
  }

  async listSnapshots(): Promise<{ seq: number; hash: string }[]> {
    return this.snapshotFiles().map(({ seq, hash }) => ({ seq, hash }));
  }

  async readSnapshot(seq: number): Promise<SnapshotRow | undefined> {
    const f = this.snapshotFiles().find((s) => s.seq === seq);
    if (f === undefined) return undefined;
    const buf = this.fs.read(pathIn(this.dir, f.name));
    if (!buf.subarray(0, SNAPSHOT_MAGIC.length).equals(SNAPSHOT_MAGIC)) return undefined;
    return { seq, hash: f.hash, state: new Uint8Array(buf.buffer, buf.byteOffset + 8, buf.length - 8) };
  }

  /**
   * Retention: deletes closed segments whose every record is below `beforeSeq` (pass the newest
   * durable snapshot's seq + 1, or less). The active segment is never deleted. Returns what went.
   */
  async prune(beforeSeq: number): Promise<{ segments: number; bytes: number }> {
    let segments = 0;
    let bytes = 0;
    while (this.segments.length > 1 && this.segments[0]!.lastSeq < beforeSeq) {
      const s = this.segments.shift()!;
      this.fs.remove(pathIn(this.dir, s.name));
      segments++;
      bytes += s.size;
    }
    if (segments > 0) {
      this.cache = undefined;
      this.cursor = undefined;
      await this.fs.syncDir(this.dir);
    }
    return { segments, bytes };
  }

  /** Segment count, bytes and seq range (for operators and disk-use reports). */
  stats(): { segments: number; bytes: number; firstSeq: number; lastSeq: number } {
    const bytes = this.segments.reduce((a, s) => a + s.size, 0);
    return {
      segments: this.segments.length,
      bytes,
      firstSeq: this.segments[0]?.firstSeq ?? this.nextSeq,
      lastSeq: this.nextSeq - 1,
    };
  }

  /** Waits for the in-flight sync, then closes the files. */
  async close(): Promise<void> {
    while (this.syncs > 0 || (this.waiters.length > 0 && this.failed === undefined)) await turn();
    await this.syncChain; // the sealed segments of the last syncs are closed
    for (const s of this.sealing.splice(0)) this.fs.close(s);
    if (this.handle !== undefined) this.fs.close(this.handle);
    this.handle = undefined;
  }
}

function laterClaim(fs: JournalFs, dir: string, names: string[], seq: number) {
  for (const n of names) {
    const r = findLaterDurableClaim(fs.read(pathIn(dir, n)), 0, seq);
    if (r !== undefined) return r;
  }
  return undefined;
}
