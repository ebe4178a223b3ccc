// The two answers of a wager round trip, in-process (docs/bench-parlay-trading.md "Wager round trip
// with the house quote"): the parlay request's 201 and the wager's 201, as the routes answered them
// before — the wire object (requestToWire, parlayToWire) through Fastify's serializer of the route's
// response schema, then encoded as the response is — against the text written directly
// (src/wire/parlay-json.ts), on the same engine state (test/helpers/parlay-wire-desk.ts: two legs,
// two quotes). Rounds interleave the ways; CPU time of this process per answer. The answers are
// checked byte for byte before anything is timed.
//
//   node --import tsx bench/parlay-answers.ts [--runs 5] [--n 20000]

import { loadavg } from 'node:os';
import Fastify from 'fastify';
import type { ParlayRecord, ParlayRequestRecord } from '../src/exchange/types.ts';
import { wireParlaySchema, wireRequestSchema } from '../src/http/schemas/parlays.ts';
import { LegOutcomeText, parlayJson, requestBody } from '../src/wire/parlay-json.ts';
import { parlayToWire, requestToWire } from '../src/wire/parlays.ts';
import { desk, R1, R2, T0 } from '../test/helpers/parlay-wire-desk.ts';
import { numArg } from './lib/args.ts';

const RUNS = numArg('runs', 5);
const N = numArg('n', 20_000);

type Serialize = (x: unknown) => string;

/** Fastify's serializers of the two routes' 201 schemas, as the routes compiled them. */
async function schemaSerializers(): Promise<{ request: Serialize; parlay: Serialize }> {
  const app = Fastify();
  let got: { request: Serialize; parlay: Serialize } | undefined;
  app.get('/', async (_req, reply) => {
    got = {
      request: reply.compileSerializationSchema({ type: 'array', items: wireRequestSchema }) as Serialize,
      parlay: reply.compileSerializationSchema(wireParlaySchema) as Serialize,
    };
    return 'ok';
  });
  await app.inject({ method: 'GET', url: '/' });
  await app.close();
  if (got === undefined) throw new Error('no serializers');
  return got;
}

/** µs of this process's CPU per call of `f`, after a warm-up. */
function cpuPerCall(f: () => unknown): number {
  for (let i = 0; i < N / 10; i++) f();
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / N;
}

const x = desk();
const ser = await schemaSerializers();
const r: ParlayRequestRecord = x.parlayRequest(R2)!;
const p: ParlayRecord = x.parlay(R1)!;
const now = T0 + 43;
const outcomes = new LegOutcomeText();
const ways = {
  'request 201, schema': () => Buffer.from(ser.request([requestToWire(x, r, now, r.accountId)]), 'utf8'),
  'request 201, text': () => requestBody(x, r, now, r.accountId, outcomes),
  'wager 201, schema': () => Buffer.from(ser.parlay(parlayToWire(p, p.takerAccountId)), 'utf8'),
  'wager 201, text': () => Buffer.from(parlayJson(p, p.takerAccountId), 'utf8'),
};
const bytes = Object.values(ways).map((f) => f().toString('utf8'));
if (bytes[0] !== bytes[1] || bytes[2] !== bytes[3])
  throw new Error('the text differs from the schema’s bytes');

console.log(
  `Parlay answers, ${N} per way and round, ${RUNS} rounds (request 201 ${bytes[0]!.length} characters, wager 201 ${bytes[2]!.length}), load ${loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}\n`,
);
const names = Object.keys(ways) as (keyof typeof ways)[];
console.log(`| round | ${names.join(' | ')} |`);
console.log(`|---:|${names.map(() => '---:').join('|')}|`);
const rows: number[][] = [];
for (let round = 0; round < RUNS; round++) {
  // each round in another order, so no way always runs first
  const order = round % 2 === 0 ? names : [...names].reverse();
  const us = new Map(order.map((k) => [k, cpuPerCall(ways[k])]));
  const row = names.map((k) => us.get(k)!);
  rows.push(row);
  console.log(`| ${round + 1} | ${row.map((v) => `${v.toFixed(1)} µs`).join(' | ')} |`);
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const m = names.map((_, i) => med(rows.map((row) => row[i]!)));
console.log(`| **median** | ${m.map((v) => `**${v.toFixed(1)} µs**`).join(' | ')} |`);
const ratio = (a: number, b: number) => rows.map((row) => (row[b]! / row[a]!).toFixed(2)).join(', ');
console.log(`\ntext ÷ schema per round: request ${ratio(0, 1)}; wager ${ratio(2, 3)}`);
console.log(`load now ${loadavg()[0]!.toFixed(1)}`);
