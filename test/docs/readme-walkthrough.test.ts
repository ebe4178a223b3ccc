// The README's walk-through, run as written on a port other than 8080: the `sh` blocks from
// "## Walk-through" to the end of README.md are extracted from the file itself (so the document
// and the test cannot drift) and run in one bash, in order, against a fresh server started as a
// newcomer starts it (demo slate, generated operator credentials, no PUBLIC_BASE_URL). Blocks whose
// first line is `# [manual] …` are skipped, as the README says. Every HTTP answer must be a success
// except the errors a block shows as `# → {"statusCode":…}`.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../auth/helpers.ts';
import { pgliteTemplate } from '../helpers/store.ts';

const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The section heading the block is under. */
  heading: string;
  text: string;
  manual: boolean;
}

/** The `sh` blocks of the walk-through: from its heading to the end of the README. */
export function walkthroughBlocks(readme: string): ReadmeBlock[] {
  const lines = readme.split('\n');
  const from = lines.indexOf('## Walk-through');
  assert.ok(from >= 0, 'README.md has a "## Walk-through" section');
  const blocks: ReadmeBlock[] = [];
  let heading = '';
  for (let i = from; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('#')) heading = l;
    if (l !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    assert.ok(end > i, `the block at README.md:${i + 1} is closed`);
    const body = lines.slice(i + 1, end);
    blocks.push({
      line: i + 1,
      heading,
      text: body.join('\n'),
      manual: (body[0] ?? '').startsWith('# [manual]'),
    });
    i = end;
  }
  return blocks;
}

/** The error statuses a block says its commands answer (`# → {"statusCode":431,…}`). */
function expectedErrors(block: ReadmeBlock): number[] {
  const out: number[] = [];
  for (const l of block.text.split('\n')) {
    const m = /^#\s*→.*"statusCode":(\d{3})/.exec(l.trim());
    if (m) out.push(Number(m[1]));
  }
  return out.sort();
}

let server: ChildProcess | undefined;
let exited: Promise<unknown> = Promise.resolve();
let dataDir: string;
let port: number;

before(async () => {
  port = await freePort();
  assert.notEqual(port, 8080);
  dataDir = join(root, '.tmp', 'readme', `${process.pid}-${port}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  // The migrated template a build leaves, as the first `npm start` unpacks it.
  cpSync(await pgliteTemplate(), join(dataDir, 'pg'), { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), DATA_DIR: dataDir };
  for (const k of [
    'DATABASE_URL',
    'PUBLIC_BASE_URL',
    'TICKBOOK_ADMIN_CLIENT_ID',
    'TICKBOOK_ADMIN_CLIENT_SECRET',
  ])
    delete env[k];
  env.LOG_LEVEL = 'warn';
  server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const s = server;
  exited = new Promise((r) => s.once('exit', r));
  const end = Date.now() + 180_000;
  for (;;) {
    assert.equal(s.exitCode, null, 'the server exited during its start');
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    assert.ok(Date.now() < end, 'the server was not ready within 180 s');
    await new Promise((r) => setTimeout(r, 250));
  }
});

after(async () => {
  server?.kill('SIGTERM');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
});

test('the README walk-through runs as written on a port other than 8080', {
  timeout: 1_200_000,
}, async () => {
  const blocks = walkthroughBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
  const runnable = blocks.filter((b) => !b.manual);
  assert.ok(runnable.length >= 10, `${runnable.length} runnable blocks`);
  // Every curl reports its status on stderr, tagged with the block it belongs to.
  const script = [
    'set -eo pipefail',
    `curl() { command curl -w '%{stderr}@@http %{http_code}\\n' "$@"; }`,
    ...runnable.map((b, i) => `echo "@@block ${i}" >&2\n${b.text}`),
    'echo "@@done" >&2',
  ].join('\n');
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), DATA_DIR: dataDir };
  for (const k of [
    'DATABASE_URL',
    'PUBLIC_BASE_URL',
    'TICKBOOK_ADMIN_CLIENT_ID',
    'TICKBOOK_ADMIN_CLIENT_SECRET',
    'HOST',
  ])
    delete env[k];
  const bash = spawn('bash', ['-c', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  bash.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  bash.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((r) => bash.once('exit', r));

  const statuses = new Map<number, number[]>();
  let current = -1;
  for (const l of stderr.split('\n')) {
    const b = /^@@block (\d+)$/.exec(l);
    if (b) current = Number(b[1]);
    const h = /@@http (\d{3})$/.exec(l);
    if (h && current >= 0) statuses.set(current, [...(statuses.get(current) ?? []), Number(h[1])]);
  }
  const where = (i: number) => `README.md:${runnable[i]?.line} (${runnable[i]?.heading})`;
  assert.equal(
    code,
    0,
    `the walk-through stopped in the block at ${where(current)}:\n${stderr.slice(-3000)}\n${stdout.slice(-2000)}`,
  );
  assert.match(stderr, /@@done/);
  for (const [i, b] of runnable.entries()) {
    const seen = statuses.get(i) ?? [];
    const errors = seen.filter((s) => s >= 400).sort();
    assert.deepEqual(errors, expectedErrors(b), `HTTP errors in the block at ${where(i)}: ${seen.join(' ')}`);
  }
  // The walk-through really talked to the server: many calls, not a silent no-op.
  const calls = [...statuses.values()].reduce((n, s) => n + s.length, 0);
  assert.ok(calls > 50, `${calls} HTTP calls`);
});
