// Token issuance throughput: Tickbook's POST /nbx/v1/auth/emm-token against oidc-provider's
// client-credentials token endpoint issuing RS256 JWT access tokens, side by side in one run; and
// the cost of bearer authentication on a GET (same route with and without requireScope).
//
//   node --import tsx bench/token.ts [--duration 5] [--rounds 3] [--connections 32]
//
// Each server runs in its own child process (so the load generator does not share its event
// loop); autocannon drives real sockets. Rounds interleave the scenarios so machine noise hits
// them alike; the table reports the median over rounds. Goals: Tickbook ≥ 2× the
// oidc-provider baseline; authenticated GET ≥ 90 % of the unauthenticated one.

import { fork } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const SELF = fileURLToPath(import.meta.url);
const CLIENT_SECRET_OIDC = 'bench-client-secret-for-oidc-provider-0123456789';

interface Ready {
  port: number;
  clientId: string;
  clientSecret: string;
  token?: string;
}

// --- server children ---------------------------------------------------------------------------

async function serveTickbook(
  signingThreads: number | undefined,
  tokenReuseSeconds: number | undefined,
): Promise<Ready> {
  const { PgliteStore } = await import('../src/store/pglite-store.ts');
  const { loadConfig } = await import('../src/config.ts');
  const { Metrics } = await import('../src/observability/metrics.ts');
  const { AuthService } = await import('../src/auth/service.ts');
  const { buildApp } = await import('../src/app.ts');
  const { registerAuthHttp } = await import('../src/http/routes/oauth.ts');
  const { randomUUID } = await import('node:crypto');

  const store = await PgliteStore.open(undefined);
  await store.migrate();
  // The shipped default logging (one access line per request, to this child's stdout, which the
  // parent points at /dev/null): the cost of the line is Tickbook's, as in production.
  const config = loadConfig({
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    TICKBOOK_DEMO: 'false',
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    KEY_ENCRYPTION_SECRET: 'bench-key-encryption-secret',
    AUTH_FAILURE_LIMIT: '1000000',
  });
  const metrics = new Metrics(false);
  const accounts = {
    ids: new Set<string>(),
    async create() {
      const id = randomUUID();
      this.ids.add(id);
      return id;
    },
    exists(id: string) {
      return this.ids.has(id);
    },
  };
  const log = { info() {}, warn() {}, error() {} };
  const auth = await AuthService.create({
    config,
    store,
    metrics,
    log,
    accounts,
    signingThreads,
    tokenReuseSeconds,
  });
  const body = { league: 'NFL', events: [{ id: 'a1b2c3', status: 'OPEN_PREGAME', markets: 3 }] };
  const app = await buildApp({
    config,
    store,
    metrics,
    features: async (a) => {
      await registerAuthHttp(a, auth);
      a.get('/bench/open', async () => body);
      a.get('/bench/auth', { preHandler: a.requireScope('read:tape') }, async () => body);
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const c = await auth.createClient({ name: 'bench', scopes: ['read:tape'] });
  const client = auth.clients.get(c.clientId)!;
  const { access_token } = await auth.issueToken(client, undefined, 'bench');
  return {
    port: (app.server.address() as AddressInfo).port,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    token: access_token,
  };
}

async function serveOidcProvider(): Promise<Ready> {
  // oidc-provider ships no type declarations; this is the part of its API used here.
  const spec = 'oidc-provider';
  const { default: Provider } = (await import(spec)) as {
    default: new (
      issuer: string,
      config: unknown,
    ) => {
      callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
    };
  };
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', kid: 'bench' };
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const audience = `http://127.0.0.1:${port}/api`;
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: 'bench',
        client_secret: CLIENT_SECRET_OIDC,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'read:tape',
      },
    ],
    jwks: { keys: [jwk] },
    scopes: ['read:tape'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // JWT access tokens for client credentials come through resource indicators (RFC 8707).
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => audience,
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({
          scope: 'read:tape',
          audience,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 86400,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  server.on('request', provider.callback());
  return { port, clientId: 'bench', clientSecret: CLIENT_SECRET_OIDC };
}

// --- orchestration -------------------------------------------------------------------------------

interface Child {
  ready: Ready;
  /** CPU time (user + system, µs, all threads) the server process has used so far. */
  cpu(): Promise<number>;
  kill(): void;
}

function spawnServer(kind: string, extraEnv: Record<string, string> = {}): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = fork(SELF, ['--serve', kind], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const waiting: ((us: number) => void)[] = [];
    child.once('message', (m) => {
      child.on('message', (c) => waiting.shift()?.((c as { cpu: number }).cpu));
      resolve({
        ready: m as Ready,
        cpu: () =>
          new Promise<number>((r) => {
            waiting.push(r);
            child.send('cpu');
          }),
        kill: () => child.kill(),
      });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code})`)));
  });
}

interface Scenario {
  name: string;
  server: Child;
  run(): Promise<autocannon.Result>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
    },
  });
  const duration = Number(values.duration);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);

  process.stderr.write('starting servers…\n');
  // Sequential: three PGlite start-ups at once thrash a 2-core machine.
  const tick = await spawnServer('tickbook');
  const tickFresh = await spawnServer('tickbook', { BENCH_TOKEN_REUSE: '0' });
  const tickInline = await spawnServer('tickbook', { BENCH_SIGNING_THREADS: '0', BENCH_TOKEN_REUSE: '0' });
  const oidc = await spawnServer('oidc');
  try {
    const load = (url: string, opts: Partial<autocannon.Options>) => () =>
      new Promise<autocannon.Result>((resolve, reject) => {
        autocannon({ url, connections, duration, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
      });
    const tokenJson = (r: Ready) =>
      JSON.stringify({
        grant_type: 'client_credentials',
        client_id: r.clientId,
        client_secret: r.clientSecret,
      });
    const tokenForm = (r: Ready) =>
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: r.clientId,
        client_secret: r.clientSecret,
        scope: 'read:tape',
      }).toString();
    const base = (r: Child) => `http://127.0.0.1:${r.ready.port}`;

    const issuance: Scenario[] = [
      {
        name: 'oidc-provider 9 (RS256 JWT, form, client_secret_post)',
        server: oidc,
        run: load(`${base(oidc)}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: tokenForm(oidc.ready),
        }),
      },
      {
        name: 'tickbook default (RS256 JWT, JSON; signing pool + 60 s reuse)',
        server: tick,
        run: load(`${base(tick)}/nbx/v1/auth/emm-token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: tokenJson(tick.ready),
        }),
      },
      {
        name: 'tickbook default (RS256 JWT, form; signing pool + 60 s reuse)',
        server: tick,
        run: load(`${base(tick)}/nbx/v1/auth/emm-token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: tokenForm(tick.ready),
        }),
      },
      {
        name: 'tickbook every token signed (JSON; signing pool, reuse off)',
        server: tickFresh,
        run: load(`${base(tickFresh)}/nbx/v1/auth/emm-token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: tokenJson(tickFresh.ready),
        }),
      },
      {
        name: 'tickbook every token signed (JSON; inline signing, reuse off)',
        server: tickInline,
        run: load(`${base(tickInline)}/nbx/v1/auth/emm-token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: tokenJson(tickInline.ready),
        }),
      },
    ];
    const gets: Scenario[] = [
      { name: 'GET without authentication', server: tick, run: load(`${base(tick)}/bench/open`, {}) },
      {
        name: 'GET with bearer (requireScope)',
        server: tick,
        run: load(`${base(tick)}/bench/auth`, { headers: { authorization: `Bearer ${tick.ready.token}` } }),
      },
    ];

    const results = new Map<string, number[]>();
    // Server CPU per request: far less sensitive than req/s to other load on a shared machine.
    const cpuPerReq = new Map<string, number[]>();
    const all = [...issuance, ...gets];
    for (let round = 1; round <= rounds; round++) {
      for (const s of all) {
        const cpu0 = await s.server.cpu();
        const r = await s.run();
        const cpu1 = await s.server.cpu();
        const perReq = (cpu1 - cpu0) / Math.max(1, r.requests.total);
        cpuPerReq.set(s.name, [...(cpuPerReq.get(s.name) ?? []), perReq]);
        if (r.non2xx > 0 || r.errors > 0)
          throw new Error(`${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        const list = results.get(s.name) ?? [];
        list.push(r.requests.average);
        results.set(s.name, list);
        process.stderr.write(
          `round ${round}: ${s.name}: ${Math.round(r.requests.average)} req/s, ${Math.round(perReq)} µs CPU/req\n`,
        );
      }
    }

    const med = (n: string) => median(results.get(n)!);
    // Ratios are taken per round (each scenario against the reference measured in the same round),
    // then the median: a drift of the machine between rounds hits both sides of a ratio alike.
    const perRound = (name: string, ref: string, of: Map<string, number[]>, invert = false) =>
      of.get(name)!.map((x, i) => (invert ? of.get(ref)![i]! / x : x / of.get(ref)![i]!));
    const row = (name: string, refName: string, label: string) => {
      const xs = results.get(name)!;
      const ratios = perRound(name, refName, results);
      const cpuRatios = perRound(name, refName, cpuPerReq, true);
      const cpu = median(cpuPerReq.get(name)!);
      return `| ${name} | ${Math.round(med(name))} | ${xs.map(Math.round).join(' / ')} | ${median(ratios).toFixed(2)}× ${label} (${ratios.map((r) => r.toFixed(2)).join(' ')}) | ${Math.round(cpu)} | ${median(cpuRatios).toFixed(2)}× (${cpuRatios.map((r) => r.toFixed(2)).join(' ')}) |`;
    };
    console.log(
      `\nnode ${process.version}, ${rounds} rounds × ${duration} s, ${connections} connections (median req/s), Tickbook at LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? 'info'}\n`,
    );
    console.log(
      '| scenario | median req/s | rounds | req/s ratio: median of rounds (per round) | server CPU µs/req | CPU per request, reference ÷ scenario (per round) |',
    );
    console.log('|---|---:|---|---|---:|---|');
    for (const s of issuance) console.log(row(s.name, issuance[0]!.name, 'oidc-provider'));
    for (const s of gets) console.log(row(s.name, gets[0]!.name, 'unauthenticated'));
    const tokenRatio = median(perRound(issuance[1]!.name, issuance[0]!.name, results));
    const freshRatio = median(perRound(issuance[3]!.name, issuance[0]!.name, results));
    const freshCpuRatio = median(perRound(issuance[3]!.name, issuance[0]!.name, cpuPerReq, true));
    const authRatio = median(perRound(gets[1]!.name, gets[0]!.name, results));
    const cpuMed = (i: number) => median(cpuPerReq.get(issuance[i]!.name)!);
    console.log(
      `\nserver CPU per token, oidc-provider ÷ tickbook: default ${(cpuMed(0) / cpuMed(1)).toFixed(2)}×, every token signed (pool) ${(cpuMed(0) / cpuMed(3)).toFixed(2)}×, inline ${(cpuMed(0) / cpuMed(4)).toFixed(2)}×`,
    );
    console.log(
      `(oidc-provider signs on its one event loop; the pool spreads signing over ${availableParallelism()} cores, so on an idle machine tickbook's ceiling is ≈ cores × 1e6 / CPU-µs)`,
    );
    console.log(
      `\ngoal token issuance ≥ 2× oidc-provider: ${tokenRatio.toFixed(2)}× ${tokenRatio >= 2 ? 'MET' : 'NOT MET'}`,
    );
    console.log(
      `goal every token freshly signed ≥ 2× per round and per CPU second: ${freshRatio.toFixed(2)}× req/s, ${freshCpuRatio.toFixed(2)}× CPU ${freshRatio >= 2 && freshCpuRatio >= 2 ? 'MET' : 'NOT MET'}`,
    );
    console.log(
      `goal authenticated GET ≥ 90 % of unauthenticated: ${(authRatio * 100).toFixed(1)} % ${authRatio >= 0.9 ? 'MET' : 'NOT MET'}`,
    );
  } finally {
    tick.kill();
    tickFresh.kill();
    tickInline.kill();
    oidc.kill();
  }
}

const serveIdx = process.argv.indexOf('--serve');
if (serveIdx >= 0) {
  const kind = process.argv[serveIdx + 1];
  const opt = (name: string) => (process.env[name] === undefined ? undefined : Number(process.env[name]));
  const ready =
    kind === 'oidc'
      ? await serveOidcProvider()
      : await serveTickbook(opt('BENCH_SIGNING_THREADS'), opt('BENCH_TOKEN_REUSE'));
  process.send?.(ready);
  process.on('message', () => {
    const u = process.cpuUsage();
    process.send?.({ cpu: u.user + u.system });
  });
} else {
  await main();
}
