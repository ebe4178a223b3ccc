// The file operations the segment journal needs, as an interface, so tests can run the journal
// over a file layer that loses power (drops every write after the last completed sync) or whose
// fdatasync fails (test/journal/power-loss-fs.ts). The real layer is plain node:fs.

import {
  closeSync,
  fdatasync,
  fsync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export interface JournalFs {
  mkdir(dir: string): void;
  /** File names in dir (not paths). */
  list(dir: string): string[];
  read(path: string): Buffer;
  /** Cuts a file to len bytes, durably (the cut is synced before recovery goes on). */
  truncate(path: string, len: number): Promise<void>;
  remove(path: string): void;
  rename(from: string, to: string): void;
  /** Opens for appending, creating the file when absent; returns a handle. */
  open(path: string): number;
  /**
   * Appends bytes at the end of the file (into the page cache: not durable until datasync). The
   * caller reuses `bytes` for its next write once this returns, so a layer keeps a copy, never them.
   */
  append(handle: number, bytes: Uint8Array): void;
  /** fdatasync(2): resolves once every byte appended before the call is on stable storage. */
  datasync(handle: number): Promise<void>;
  close(handle: number): void;
  /** fsync of the directory itself, so file creations, renames and removals in it are durable. */
  syncDir(dir: string): Promise<void>;
}

const cb =
  (resolve: () => void, reject: (e: unknown) => void) =>
  (err: NodeJS.ErrnoException | null): void =>
    err ? reject(err) : resolve();

export const nodeJournalFs: JournalFs = {
  mkdir: (dir) => void mkdirSync(dir, { recursive: true }),
  list: (dir) => readdirSync(dir),
  read: (path) => readFileSync(path),
  truncate: async (path, len) => {
    truncateSync(path, len);
    const fd = openSync(path, 'r+');
    try {
      await new Promise<void>((res, rej) => fsync(fd, cb(res, rej)));
    } finally {
      closeSync(fd);
    }
  },
  remove: (path) => rmSync(path, { force: true }),
  rename: (from, to) => renameSync(from, to),
  open: (path) => openSync(path, 'a'),
  append: (handle, bytes) => {
    let off = 0;
    while (off < bytes.length) off += writeSync(handle, bytes, off, bytes.length - off);
  },
  datasync: (handle) => new Promise<void>((res, rej) => fdatasync(handle, cb(res, rej))),
  close: (handle) => closeSync(handle),
  syncDir: async (dir) => {
    const fd = openSync(dir, 'r');
    try {
      await new Promise<void>((res, rej) => fsync(fd, cb(res, rej)));
    } finally {
      closeSync(fd);
    }
  },
};

export const pathIn = join;
