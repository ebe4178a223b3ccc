// A JournalFs in memory that can lose power, for the segment journal's durability tests.
//
// Each file keeps the bytes a datasync has made durable and the bytes written since. crash()
// returns a new file system holding what a power cut leaves: the durable bytes of every file
// whose directory entry was synced, plus — to model writes the disk had partly done — any prefix
// of the unsynced tail, optionally with bits flipped in it. datasync can be made to fail.

import type { JournalFs } from '../../src/journal/journal-fs.ts';

interface MemFile {
  data: Buffer;
  durable: number;
}

export interface CrashOptions {
  /** Unsynced bytes that reach the disk (from the start of the unsynced tail): 0..1. */
  tornFraction?: number;
  /** Offsets (relative to the unsynced tail) whose byte gets a bit flipped, if they survived. */
  flips?: number[];
}

export class PowerLossFs implements JournalFs {
  /** Current directory entries (what the running process sees). */
  private entries = new Map<string, MemFile>();
  /** Entries as of the last syncDir of their directory (what survives a power cut). */
  private durableEntries = new Map<string, MemFile>();
  private handles = new Map<number, MemFile>();
  private nextHandle = 1;
  /** When set, the next datasync fails with it. */
  failNextSync: Error | undefined;
  syncs = 0;

  constructor(files?: Map<string, Buffer>) {
    if (files) {
      for (const [p, b] of files) {
        const f = { data: Buffer.from(b), durable: b.length };
        this.entries.set(p, f);
        this.durableEntries.set(p, f);
      }
    }
  }

  mkdir(): void {}
  list(dir: string): string[] {
    const pre = `${dir}/`;
    return [...this.entries.keys()].filter((p) => p.startsWith(pre)).map((p) => p.slice(pre.length));
  }
  read(path: string): Buffer {
    const f = this.entries.get(path);
    if (!f) throw Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' });
    return Buffer.from(f.data);
  }
  async truncate(path: string, len: number): Promise<void> {
    const f = this.entries.get(path)!;
    f.data = f.data.subarray(0, len);
    f.durable = Math.min(f.durable, len);
  }
  remove(path: string): void {
    this.entries.delete(path);
  }
  rename(from: string, to: string): void {
    const f = this.entries.get(from);
    if (!f) throw new Error(`ENOENT ${from}`);
    this.entries.delete(from);
    this.entries.set(to, f);
  }
  open(path: string): number {
    let f = this.entries.get(path);
    if (!f) {
      f = { data: Buffer.alloc(0), durable: 0 };
      this.entries.set(path, f);
    }
    const h = this.nextHandle++;
    this.handles.set(h, f);
    return h;
  }
  append(handle: number, bytes: Uint8Array): void {
    const f = this.handles.get(handle)!;
    f.data = Buffer.concat([f.data, bytes]);
  }
  async datasync(handle: number): Promise<void> {
    const f = this.handles.get(handle)!;
    const upTo = f.data.length;
    await new Promise((r) => setTimeout(r, 1)); // a sync takes time: commands pile up meanwhile
    this.syncs++;
    if (this.failNextSync) {
      const e = this.failNextSync;
      this.failNextSync = undefined;
      throw e;
    }
    f.durable = Math.max(f.durable, upTo);
  }
  close(handle: number): void {
    this.handles.delete(handle);
  }
  async syncDir(dir: string): Promise<void> {
    const pre = `${dir}/`;
    for (const p of [...this.durableEntries.keys()]) if (p.startsWith(pre)) this.durableEntries.delete(p);
    for (const [p, f] of this.entries) if (p.startsWith(pre)) this.durableEntries.set(p, f);
  }

  /** What is left after a power cut (see the header). */
  crash(opts: CrashOptions = {}): PowerLossFs {
    const left = new Map<string, Buffer>();
    for (const [p, f] of this.durableEntries) {
      const tail = f.data.subarray(f.durable);
      const keep = Math.floor(tail.length * (opts.tornFraction ?? 0));
      const bytes = Buffer.concat([f.data.subarray(0, f.durable), tail.subarray(0, keep)]);
      for (const o of opts.flips ?? []) {
        if (o < keep) bytes[f.durable + o]! ^= 1 << (o % 8);
      }
      left.set(p, bytes);
    }
    return new PowerLossFs(left);
  }

  /** Flips one bit of a file as it is now (damage to synced data). */
  flip(path: string, offset: number): void {
    const f = this.entries.get(path)!;
    f.data[offset]! ^= 0x10;
  }
}
