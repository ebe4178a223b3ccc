// A migrated, empty PGlite data directory, made once at build time and unpacked on a first start.
//
// Creating an embedded database runs initdb inside PGlite's WASM: on the first `npm start` that
// took 13–14 s of a ~20 s start and pushed the process to 823 MB resident, and a WASM heap never
// gives memory back, so the idle server kept most of it (docs/packaging.md, "First start").
// `npm run build` therefore runs initdb and the migrations once (scripts/copy-build-assets.mjs →
// PgliteStore.buildTemplate) and stores the resulting data directory as a gzipped tarball beside this module
// in dist/; PgliteStore.open loads it into an empty data directory (PGlite's loadDataDir) instead
// of running initdb. Migrations added after the template was built are applied by migrate() as
// for any existing database. Where there is no template (the sources run through tsx, as tests do)
// the store runs initdb as before.

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the build writes the template: beside this module (dist/store/ in a build). */
export const TEMPLATE_FILE = fileURLToPath(new URL('./pglite-template.tar.gz', import.meta.url));

/** The template's bytes, or undefined when this installation has none. */
export function readTemplate(file: string = TEMPLATE_FILE): Blob | undefined {
  if (!existsSync(file)) return undefined;
  return new Blob([readFileSync(file)]);
}
