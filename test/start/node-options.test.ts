// The shipped V8 options (bin/node-options.mjs, docs/packaging.md "Young generation") reach every
// way the server is started: `npm start`, the container's CMD, `tickbook start`, and the benches'
// bootBuilt. The start commands are run with the server replaced by a probe that allocates and
// reports how large V8 let the young generation grow: above V8's default cap only if the flag
// took effect.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { shippedEnv } from '../../bench/lib/order-servers.ts';
import { hasShippedNodeOptions, SHIPPED_NODE_OPTIONS, serverNodeOptions } from '../../bin/node-options.mjs';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const MiB = 1024 * 1024;
/** V8's default new space on 64-bit: two 16 MiB semi-spaces (`node --v8-options`: max-semi-space-size). */
const DEFAULT_NEW_SPACE = 32 * MiB;

// Keeps up to 200,000 small objects alive while allocating 3 million: the survivors make V8 grow
// the new space to its cap. Prints the new space's size in bytes.
const PROBE = [
  'let keep = [];',
  'for (let i = 0; i < 3e6; i++) { keep.push({ a: i, b: [i] }); if (keep.length > 2e5) keep = []; }',
  "const s = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');",
  'console.log(s.space_size);',
].join(' ');
const probeCommand = `"${process.execPath}" -e "${PROBE.replaceAll('"', '\\"')}"`;

function envWithout(...names: string[]): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const n of names) delete env[n];
  return env;
}

async function newSpace(shellCommand: string, env: NodeJS.ProcessEnv): Promise<number> {
  const { stdout } = await run('sh', ['-c', shellCommand], { env, cwd: root });
  return Number(stdout.trim());
}

describe('shipped V8 options', () => {
  test('are a larger young generation than V8 default, then the caller NODE_OPTIONS', () => {
    assert.deepEqual(SHIPPED_NODE_OPTIONS, ['--max-semi-space-size=32']);
    assert.equal(serverNodeOptions({}), '--max-semi-space-size=32');
    assert.equal(
      serverNodeOptions({ NODE_OPTIONS: '--max-semi-space-size=16 --trace-gc' }),
      '--max-semi-space-size=32 --max-semi-space-size=16 --trace-gc',
    );
    assert.equal(hasShippedNodeOptions({}, []), false);
    assert.equal(hasShippedNodeOptions({ NODE_OPTIONS: '--trace-gc' }, ['--max-old-space-size=512']), false);
    assert.equal(hasShippedNodeOptions({ NODE_OPTIONS: '--max-semi-space-size=8' }, []), true);
    assert.equal(hasShippedNodeOptions({}, ['--max-semi-space-size=64']), true);
  });

  test('npm start runs the server with them; an operator NODE_OPTIONS overrides them', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const start = pkg.scripts.start!;
    assert.match(start, / node dist\/main\.js$/);
    const probe = start.replace(/node dist\/main\.js$/, probeCommand);
    const env = envWithout('NODE_OPTIONS');
    assert.ok((await newSpace(probe, env)) > DEFAULT_NEW_SPACE);
    const own = await newSpace(probe, { ...env, NODE_OPTIONS: '--max-semi-space-size=16' });
    assert.ok(own <= DEFAULT_NEW_SPACE, `${own}`);
  });

  test('the container CMD runs the server with them', async () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));
    assert.ok(cmd);
    const argv = JSON.parse(cmd[1]!) as string[];
    assert.deepEqual(argv.slice(0, 2), ['sh', '-c']);
    assert.match(argv[2]!, / exec node dist\/main\.js$/);
    const probe = argv[2]!.replace(/node dist\/main\.js$/, probeCommand);
    assert.ok((await newSpace(probe, envWithout('NODE_OPTIONS'))) > DEFAULT_NEW_SPACE);
  });

  test('tickbook start runs itself again with them, and exits as that run does', async () => {
    // The probe, loaded into every node process of the command through NODE_OPTIONS, prints the
    // young generation's size; PORT=abc ends the start with a configuration error (exit code 2).
    const dir = mkdtempSync(join(tmpdir(), 'tickbook-node-options-'));
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, PROBE.replace('console.log(', "console.log('new space', "));
    try {
      const r = await run(process.execPath, [join(root, 'bin/tickbook.js'), 'start'], {
        env: { ...envWithout('NODE_OPTIONS'), NODE_OPTIONS: `--require ${probe}`, PORT: 'abc' },
        cwd: dir,
      }).then(
        () => assert.fail('started'),
        (err: { code: number; stdout: string; stderr: string }) => err,
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /PORT/);
      const sizes = [...r.stdout.matchAll(/new space (\d+)/g)].map((m) => Number(m[1]));
      // This process (V8's default) and the one it started (the shipped options).
      assert.equal(sizes.length, 2, r.stdout);
      assert.ok(sizes[0]! <= DEFAULT_NEW_SPACE && sizes[1]! > DEFAULT_NEW_SPACE, `${sizes}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('without them a process keeps V8 default young generation (the probe can tell)', async () => {
    assert.ok((await newSpace(probeCommand, envWithout('NODE_OPTIONS'))) <= DEFAULT_NEW_SPACE);
  });

  test('the benches start the built server with them, and with a NODE_OPTIONS given after them', () => {
    assert.equal(shippedEnv({}).NODE_OPTIONS?.split(' ')[0], '--max-semi-space-size=32');
    assert.equal(
      shippedEnv({ NODE_OPTIONS: '--max-semi-space-size=16' }).NODE_OPTIONS,
      '--max-semi-space-size=32 --max-semi-space-size=16',
    );
  });
});
