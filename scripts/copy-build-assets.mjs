// `npm run build` step 2: tsc emits only JavaScript, so the files the program reads at run time
// next to its modules (the SQL migrations, found through import.meta.url by
// src/store/migrations.ts) are copied into dist/ at the same relative paths. Then the embedded
// store's template is built: an empty, migrated PGlite data directory that a first start unpacks
// instead of running initdb (src/store/pglite-template.ts). See docs/packaging.md.
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ASSET_DIRS = ['store/migrations'];

for (const rel of ASSET_DIRS) {
  const from = join(root, 'src', rel);
  const to = join(root, 'dist', rel);
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(from)) {
    if (!f.endsWith('.ts')) cpSync(join(from, f), join(to, f));
  }
}

// After the migrations are in place: the template is built from the compiled store module.
const { PgliteStore } = await import('../dist/store/pglite-store.js');
const t0 = Date.now();
const { bytes } = await PgliteStore.buildTemplate();
process.stdout.write(
  `embedded store template: ${(bytes / 1024 / 1024).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
);

// The stamp tells scripts/ensure-build.mjs when this build was made.
writeFileSync(join(root, 'dist', '.build-stamp'), `${new Date().toISOString()}\n`);
