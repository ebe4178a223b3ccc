// In-process A/B of a mass quote's own work against another checkout (docs/bench-mass-quote.md): the
// edge building each MassQuote command from its request (quoteCommand, ids minted as that checkout
// mints them: one idBase per set, or an id per quoted level), the engine applying
// bench/mass-quote.ts's quote sets (5 levels × 2 outcomes, quantities cycling, events on), the text
// of each set's REST answer as each checkout writes it (a checkout without quoteSetJson: the route's
// schema serializer over quoteSetWire, as Fastify ran it), and the text of its `/trade` answer
// (JSON.stringify of quoteSetWire, or the REST text where the socket's handler sends that). CPU time
// per set, each checkout in a child process of its own per round (one engine per process, so neither
// makes the other's property reads polymorphic), the order alternating every round; the median of
// the per-round ratios is the figure. The HTTP path around it (parsing, journal, socket writes) is
// bench/mass-quote.ts's.
//
//   node --import tsx bench/mass-quote-ab.ts --before <checkout> [--sets 200000] [--runs 5]

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { numArg, requiredArg } from './lib/args.ts';
import { median } from './lib/order-servers.ts';

const self = fileURLToPath(import.meta.url);
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));

interface Figures {
  /** The edge building the command from the request (ids minted as that checkout mints them). */
  commandUs: number;
  engineUs: number;
  answerUs: number;
  /** The /trade socket's answer text of the same sets. */
  socketUs: number;
}

/** One checkout, one run: CPU µs per set of the command's building, the engine and the answer's text. */
async function child(root: string, sets: number): Promise<Figures> {
  const mod = (p: string) => import(pathToFileURL(join(root, p)).href);
  const { setup, T0 } = await mod('test/exchange/fixtures.ts');
  const { quoteCommand } = await mod('src/runtime/quote-entry.ts');
  const { uuidv7 } = await mod('src/ids.ts');
  // A checkout with src/exchange/quote-ids.ts takes one idBase per command, an older one a
  // function minting an id per quoted level.
  const oneId = existsSync(join(root, 'src/exchange/quote-ids.ts'));
  const accounts = Array.from({ length: 8 }, (_, i) => `acct-${i}`);
  const x = setup('OPEN_PREGAME', accounts);
  const markets = ['M1', 'M2'];
  /** The k-th set as the wire gives it (prices decimals). */
  const request = (k: number) => {
    const m = markets[k % markets.length]!;
    const round = Math.floor(k / markets.length);
    const levels = (base: number) =>
      Array.from({ length: 5 }, (_, j) => ({
        price: Number((base + j / 100).toFixed(2)),
        qty: 100 * (1 + ((round + j) % 3)),
      }));
    return {
      accountId: accounts[round % accounts.length]!,
      body: {
        marketId: m,
        currency: 'CASH',
        quotes: [
          { outcomeId: `${m}-a`, levels: levels(0.4) },
          { outcomeId: `${m}-b`, levels: levels(0.5) },
        ],
      },
    };
  };
  type Cmd = { ts: number; marketId: string; quotes: { outcomeId: string }[] };
  const build = (k: number, r: ReturnType<typeof request>): Cmd =>
    quoteCommand(r.accountId, r.body, oneId ? uuidv7(T0 + k) : () => uuidv7(T0 + k));
  /** The fixture's ids are upper case, which the edge lowers: put them back (untimed). */
  const fix = (k: number, c: Cmd, r: ReturnType<typeof request>) => {
    c.ts = T0 + 1000 + k;
    c.marketId = r.body.marketId;
    c.quotes.forEach((q, i) => {
      q.outcomeId = r.body.quotes[i]!.outcomeId;
    });
    return c;
  };
  // Sets applied first for warm-up, then timed (answers dropped), then kept for the answer's text.
  const warm = 20_000;
  const kept = 20_000;
  const wire = Array.from({ length: warm + sets + kept }, (_, k) => request(k));
  for (let k = 0; k < warm; k++) build(k, wire[k]!);
  const c0cmd = process.cpuUsage();
  const built: Cmd[] = [];
  for (let k = 0; k < wire.length; k++) built.push(build(k, wire[k]!));
  const cuCmd = process.cpuUsage(c0cmd);
  const commandUs = (cuCmd.user + cuCmd.system) / wire.length;
  const cmds = built.map((c, k) => fix(k, c, wire[k]!));
  type Set = { marketId: string; currency: string; orders: unknown[] };
  const apply = (k: number) => {
    const r = x.apply(cmds[k]);
    if (!r.ok) throw new Error(`set ${k}: ${r.code}`);
    for (const e of r.events) if (e.kind === 'QuotesReplaced') return e as Set;
    throw new Error('no QuotesReplaced');
  };
  for (let k = 0; k < warm; k++) apply(k);
  let c0 = process.cpuUsage();
  for (let k = warm; k < warm + sets; k++) apply(k);
  let cu = process.cpuUsage(c0);
  const engineUs = (cu.user + cu.system) / sets;
  const answers: Set[] = [];
  for (let k = warm + sets; k < warm + sets + kept; k++) answers.push(apply(k));
  const requests = await mod('src/http/order-requests.ts');
  let text: (s: Set) => string = requests.quoteSetJson;
  if (text === undefined) {
    const { quoteSetSchema } = await mod('src/http/schemas/quotes.ts');
    const fjs = (await import('fast-json-stringify')).default as (s: unknown) => (v: unknown) => string;
    const serialize = fjs(quoteSetSchema);
    text = (s) => serialize(requests.quoteSetWire(s));
  }
  for (const a of answers) text(a);
  let bytes = 0;
  c0 = process.cpuUsage();
  for (let k = 0; k < sets; k++) bytes += text(answers[k % kept]!).length;
  cu = process.cpuUsage(c0);
  if (bytes === 0) throw new Error('no answer text');
  const answerUs = (cu.user + cu.system) / sets;
  // The /trade socket's answer: the REST text where its massQuote handler sends it (Answer.json),
  // else JSON.stringify of the wire object, as that handler did.
  const handlers = readFileSync(join(root, 'src/http/order-socket/handlers.ts'), 'utf8');
  const socketText: (s: Set) => string = handlers.includes('json: quoteSetJson')
    ? requests.quoteSetJson
    : (s) => JSON.stringify(requests.quoteSetWire(s));
  for (const a of answers) socketText(a);
  bytes = 0;
  c0 = process.cpuUsage();
  for (let k = 0; k < sets; k++) bytes += socketText(answers[k % kept]!).length;
  cu = process.cpuUsage(c0);
  if (bytes === 0) throw new Error('no socket answer text');
  return { commandUs, engineUs, answerUs, socketUs: (cu.user + cu.system) / sets };
}

if (process.argv.includes('--child')) {
  const root = process.argv[process.argv.indexOf('--child') + 1]!;
  const sets = Number(process.argv[process.argv.indexOf('--sets') + 1]);
  process.stdout.write(`${JSON.stringify(await child(root, sets))}\n`);
  process.exit(0);
}

const before = resolve(
  requiredArg('before', 'bench/mass-quote-ab.ts --before <checkout> [--sets 200000] [--runs 5]'),
);
const SETS = numArg('sets', 200_000);
const RUNS = numArg('runs', 5);

function run(root: string): Figures {
  const r = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', root, '--sets', String(SETS)], {
    encoding: 'utf8',
    cwd: here,
  });
  if (r.status !== 0) throw new Error(`child for ${root} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Figures;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(
  `\nMass quote in process: ${SETS} sets per run, ${RUNS} rounds; load average at start: ${load()}\n`,
);
console.log(
  '| round | command µs/set (this) | (base) | ratio | engine µs/set (this) | (base) | ratio | REST answer text µs/set (this) | (base) | ratio | socket answer text µs/set (this) | (base) | ratio |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const command: number[] = [];
const engine: number[] = [];
const socket: number[] = [];
const answer: number[] = [];
const rows: { a: Figures; b: Figures }[] = [];
for (let round = 0; round < RUNS; round++) {
  let a: Figures;
  let b: Figures;
  if (round % 2 === 0) {
    a = run(here);
    b = run(before);
  } else {
    b = run(before);
    a = run(here);
  }
  rows.push({ a, b });
  command.push(a.commandUs / b.commandUs);
  engine.push(a.engineUs / b.engineUs);
  answer.push(a.answerUs / b.answerUs);
  socket.push(a.socketUs / b.socketUs);
  console.log(
    `| ${round + 1} | ${a.commandUs.toFixed(2)} | ${b.commandUs.toFixed(2)} | ${command.at(-1)!.toFixed(2)} | ${a.engineUs.toFixed(2)} | ${b.engineUs.toFixed(2)} | ${engine.at(-1)!.toFixed(2)} | ${a.answerUs.toFixed(2)} | ${b.answerUs.toFixed(2)} | ${answer.at(-1)!.toFixed(2)} | ${a.socketUs.toFixed(2)} | ${b.socketUs.toFixed(2)} | ${socket.at(-1)!.toFixed(2)} |`,
  );
}
const med = (f: (r: { a: Figures; b: Figures }) => number) => median(rows.map(f)).toFixed(2);
console.log(`\nMedians (load average now: ${load()})\n`);
console.log('| | this checkout | base | median per-round ratio |');
console.log('|---|---:|---:|---:|');
console.log(
  `| command building, µs CPU per set | ${med((r) => r.a.commandUs)} | ${med((r) => r.b.commandUs)} | ${median(command).toFixed(2)} |`,
);
console.log(
  `| engine, µs CPU per set | ${med((r) => r.a.engineUs)} | ${med((r) => r.b.engineUs)} | ${median(engine).toFixed(2)} |`,
);
console.log(
  `| socket answer text, µs CPU per set | ${med((r) => r.a.socketUs)} | ${med((r) => r.b.socketUs)} | ${median(socket).toFixed(2)} |`,
);
console.log(
  `| REST answer text, µs CPU per set | ${med((r) => r.a.answerUs)} | ${med((r) => r.b.answerUs)} | ${median(answer).toFixed(2)} |`,
);
