// Vite build of the browser UI (docs/ui.md). `npm run build:ui` writes ui/dist, which the server
// serves at /ui; asset names carry a content hash, so the server caches them for a year.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  // Preact through the automatic JSX runtime (no React compat layer).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    // Inline nothing into index.html: the CSP allows scripts and styles from files only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
