// The Node/V8 options the server ships with (docs/packaging.md "The young generation", docs/decisions.md),
// defined once, here, for every way the server is started: `npm start` and the container's CMD put
// `node bin/node-options.mjs`'s output in NODE_OPTIONS, `tickbook start` (bin/tickbook.js) runs itself
// again with it, and the benches start the built server with it (bench/lib/order-servers.ts,
// bench/lib/app-children.ts). V8 sizes its heap when the process starts (v8.setFlagsFromString
// afterwards does not resize the young generation), so these must be in NODE_OPTIONS or on node's
// command line before the server's first line runs.
//
// The shipped options come first and the caller's own NODE_OPTIONS after them: V8 takes the last
// value of a flag, so `NODE_OPTIONS=--max-semi-space-size=16 npm start` runs with V8's default.
import { pathToFileURL } from 'node:url';

/** A young generation of 2 × 32 MiB semi-spaces (V8's default on 64-bit: 16 MiB). */
export const SHIPPED_NODE_OPTIONS = ['--max-semi-space-size=32'];

/** NODE_OPTIONS for the server: the shipped options, then `env`'s own NODE_OPTIONS. */
export function serverNodeOptions(env = process.env) {
  return [...SHIPPED_NODE_OPTIONS, env.NODE_OPTIONS ?? ''].join(' ').trim();
}

/** Whether every shipped flag is already in `env`'s NODE_OPTIONS or `execArgv` (any value). */
export function hasShippedNodeOptions(env = process.env, execArgv = process.execArgv) {
  const given = [...(env.NODE_OPTIONS ?? '').split(/\s+/), ...execArgv];
  return SHIPPED_NODE_OPTIONS.every((opt) => {
    const name = opt.split('=')[0];
    return given.some((g) => g === name || g.startsWith(`${name}=`));
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(serverNodeOptions());
}
