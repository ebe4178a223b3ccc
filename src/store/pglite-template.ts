// A migrated, empty PGlite data directory, made once at build time and unpacked on a first start.
//
// Creating an embedded database runs initdb inside PGlite's WASM: on the first `npm start` that
// took 13–14 s of a ~20 s start and pushed the process to 823 MB resident, and a WASM heap never
// gives memory back, so the idle server kept most of it (docs/packaging.md, "First start").
// `npm run build` therefore runs initdb and the migrations once (scripts/copy-build-assets.mjs →
// PgliteStore.buildTemplate) and stores the resulting data directory as a gzipped tarball beside this module
// in dist/. A first start writes its files into the data directory with Node's own zlib and file
// system (unpackTemplate) and PGlite then opens an existing database; PGlite's `loadDataDir` did
// the same through its WASM file system, which cost a second or more of CPU and ~80 MB of
// transient buffers. Migrations added after the template was built are applied by migrate() as
// for any existing database. Where there is no template (the sources run through tsx, as tests do)
// the store runs initdb as before.

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** Where the build writes the template: beside this module (dist/store/ in a build). */
export const TEMPLATE_FILE = fileURLToPath(new URL('./pglite-template.tar.gz', import.meta.url));

/** The template's (gzipped) bytes, or undefined when this installation has none. */
export function readTemplate(file: string = TEMPLATE_FILE): Buffer | undefined {
  return existsSync(file) ? readFileSync(file) : undefined;
}

/** One entry of the template's tar (the ustar subset PGlite's dumpDataDir writes). */
interface TarEntry {
  name: string;
  type: 'file' | 'dir';
  mode: number;
  mtime: number;
  data: Buffer;
}

const BLOCK = 512;

function field(h: Buffer, from: number, to: number): string {
  const s = h.subarray(from, to);
  const nul = s.indexOf(0);
  return s.subarray(0, nul < 0 ? s.length : nul).toString('utf8');
}

function octal(h: Buffer, from: number, to: number, what: string): number {
  const s = field(h, from, to).trim();
  if (!/^[0-7]*$/.test(s)) throw new Error(`template: bad ${what} field`);
  return s === '' ? 0 : Number.parseInt(s, 8);
}

/** Parses an uncompressed tar (ustar headers, regular files and directories only). */
export function parseTar(tar: Buffer): TarEntry[] {
  const out: TarEntry[] = [];
  let off = 0;
  while (off + BLOCK <= tar.length) {
    const h = tar.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) break; // end-of-archive blocks
    // The checksum counts the checksum field itself as eight spaces (POSIX ustar).
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
    if (sum !== octal(h, 148, 156, 'checksum')) throw new Error('template: tar header checksum mismatch');
    const prefix = field(h, 345, 500);
    const name = prefix === '' ? field(h, 0, 100) : `${prefix}/${field(h, 0, 100)}`;
    const size = octal(h, 124, 136, 'size');
    const flag = String.fromCharCode(h[156]!);
    off += BLOCK;
    if (off + size > tar.length) throw new Error('template: truncated tar');
    const common = { name, mode: octal(h, 100, 108, 'mode') & 0o777, mtime: octal(h, 136, 148, 'mtime') };
    if (flag === '0' || flag === '\0')
      out.push({ ...common, type: 'file', data: tar.subarray(off, off + size) });
    else if (flag === '5') out.push({ ...common, type: 'dir', data: tar.subarray(0, 0) });
    else throw new Error(`template: unsupported tar entry type ${JSON.stringify(flag)} for ${name}`);
    off += Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}

/**
 * Writes the template's data directory into `dataDir`, which must be an empty directory. The files
 * go into a sibling directory first, which then replaces the empty one in a single rename, so a
 * start interrupted half-way leaves no partial database that a later start would try to open (it
 * finds the empty directory again and unpacks anew). Throws on a malformed template; the caller
 * then falls back to initdb.
 */
export function unpackTemplate(template: Buffer, dataDir: string): void {
  const entries = parseTar(gunzipSync(template));
  const prefix = `.${basename(dataDir)}.unpacking-`;
  // What a start killed while unpacking left behind (its process is gone).
  for (const e of readdirSync(dirname(dataDir))) {
    const pid = e.startsWith(prefix) ? Number(e.slice(prefix.length)) : Number.NaN;
    if (Number.isSafeInteger(pid) && pid > 0 && (pid === process.pid || !isAlive(pid)))
      rmSync(join(dirname(dataDir), e), { recursive: true, force: true });
  }
  const tmp = join(dirname(dataDir), `${prefix}${process.pid}`);
  try {
    mkdirSync(tmp, { recursive: true });
    for (const e of entries) {
      const rel = normalize(e.name.replace(/^\/+/, ''));
      if (rel === '.' || rel.startsWith(`..${sep}`) || rel === '..')
        throw new Error(`template: bad path ${e.name}`);
      const path = join(tmp, rel);
      if (e.type === 'dir') mkdirSync(path, { recursive: true, mode: e.mode });
      else {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, e.data, { mode: e.mode });
        utimesSync(path, e.mtime, e.mtime); // as PGlite's loadDataDir does
      }
    }
    // rename(2) replaces an empty directory; anything else in it means another process got there.
    if (readdirSync(dataDir).length !== 0) throw new Error(`template: ${dataDir} is no longer empty`);
    rmdirSync(dataDir);
    renameSync(tmp, dataDir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    throw err;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
