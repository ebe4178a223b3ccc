// A migrated, empty PGlite data directory, made once at build time and unpacked on a first start.
//
// Creating an embedded database runs initdb inside PGlite's WASM: on the first `npm start` that
// took 13–14 s of a ~20 s start and pushed the process to 823 MB resident, and a WASM heap never
// gives memory back, so the idle server kept most of it (docs/packaging.md, "First start").
// `npm run build` therefore runs initdb and the migrations once (scripts/copy-build-assets.mjs →
// PgliteStore.buildTemplate) and stores the resulting data directory as a gzipped tarball beside this module
// in dist/. A first start writes its files into the data directory with node-tar on Node's own
// zlib and file system (unpackTemplate) and PGlite then opens an existing database; PGlite's `loadDataDir` did
// the same through its WASM file system, which cost a second or more of CPU and ~80 MB of
// transient buffers. Migrations added after the template was built are applied by migrate() as
// for any existing database. Where there is no template (the sources run through tsx, as tests do)
// the store runs initdb as before.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UnpackSync } from 'tar';
import { isAlive } from './process-alive.ts';

/** Where the build writes the template: beside this module (dist/store/ in a build). */
export const TEMPLATE_FILE = fileURLToPath(new URL('./pglite-template.tar.gz', import.meta.url));

/** The template's (gzipped) bytes, or undefined when this installation has none. */
export function readTemplate(file: string = TEMPLATE_FILE): Buffer | undefined {
  return existsSync(file) ? readFileSync(file) : undefined;
}

/**
 * Writes the template's data directory into `dataDir`, which must be an empty directory. The files
 * go into a sibling directory first, which then replaces the empty one in a single rename, so a
 * start interrupted half-way leaves no partial database that a later start would try to open (it
 * finds the empty directory again and unpacks anew). Throws on a malformed template; the caller
 * then falls back to initdb.
 */
export function unpackTemplate(template: Buffer, dataDir: string): void {
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
    // node-tar: gzip detected, header checksums checked, paths kept inside `cwd` (PGlite's
    // dumpDataDir writes absolute names such as `/base/1/…`: node-tar strips the leading `/` and
    // refuses `..`), mtimes kept as PGlite's loadDataDir does. That stripping is only reported as
    // information; every other warning (a bad header, a truncated archive) is an error, so a
    // damaged template falls back to initdb.
    new UnpackSync({
      cwd: tmp,
      onwarn: (code, message) => {
        if (code !== 'TAR_ENTRY_INFO') throw new Error(`template: ${code}: ${String(message)}`);
      },
    }).end(template);
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
