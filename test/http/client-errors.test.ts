// HTTP-level errors, before any request object exists (node's 'clientError': header fields too
// large, malformed request lines and headers, bad framing), leave with the one error envelope of
// docs/http.md "Validation and errors" including its `code` (docs/http.md "Validation and errors"). Tested over a real
// socket with raw writes, since inject() never reaches node's HTTP parser.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { clientErrorResponse } from '../../src/http/client-errors.ts';
import { nullStore } from './harness.ts';

let app: FastifyInstance;
let port = 0;
before(async () => {
  app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), store: nullStore });
  app.get('/ping', async () => ({ ok: true }));
  app.post('/echo', async (request) => request.body ?? null);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  port = typeof addr === 'object' && addr !== null ? addr.port : 0;
});
after(() => app.close());

/** Writes `raw` on a fresh connection and reads until the server closes it (or 5 s pass). */
function exchange(raw: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    }, 5000);
    s.on('data', (c) => chunks.push(c));
    s.on('error', (e: NodeJS.ErrnoException) => {
      // The server may reset after answering; what it wrote is what counts.
      if (e.code !== 'ECONNRESET' && e.code !== 'EPIPE') reject(e);
    });
    s.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    s.write(raw);
  });
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits the responses in `text` (Content-Length framed). */
function parse(text: string): Parsed[] {
  const out: Parsed[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    assert.ok(end > 0, `no header end in ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const m = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '');
    assert.ok(m, `status line: ${statusLine}`);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const len = Number(headers['content-length']);
    assert.ok(Number.isInteger(len), 'content-length');
    const body = rest.slice(end + 4, end + 4 + len);
    assert.equal(Buffer.byteLength(body, 'latin1'), len, 'whole body');
    out.push({ status: Number(m[1]), headers, body });
    rest = rest.slice(end + 4 + len);
  }
  return out;
}

function assertEnvelope(r: Parsed | undefined, status: number, code: string): void {
  assert.ok(r, 'a response');
  assert.equal(r.status, status, r.body);
  assert.match(r.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(r.headers.connection, 'close');
  const body = JSON.parse(r.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'statusCode']);
  assert.equal(body.statusCode, status);
  assert.equal(body.code, code);
  assert.equal(typeof body.error, 'string');
  assert.equal(typeof body.message, 'string');
}

describe('client errors carry the error envelope', () => {
  test('a valid request over the same raw client answers 200 (the harness works)', async () => {
    const [r] = parse(await exchange('GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    assert.equal(r?.status, 200);
    assert.deepEqual(JSON.parse(r?.body ?? ''), { ok: true });
  });

  test('header fields too large → 431 HEADERS_TOO_LARGE', async () => {
    const big = 'a'.repeat(20_000);
    const rs = parse(await exchange(`GET /ping HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`));
    assert.equal(rs.length, 1);
    assertEnvelope(rs[0], 431, 'HEADERS_TOO_LARGE');
  });

  test('a request line too long → 431 HEADERS_TOO_LARGE', async () => {
    const rs = parse(await exchange(`GET /${'p'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    assertEnvelope(rs[0], 431, 'HEADERS_TOO_LARGE');
  });

  const malformed: [string, string][] = [
    ['garbage request line', 'GARBAGE\r\n\r\n'],
    ['unknown method token', 'G@T / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['bad HTTP version', 'GET / HTTP/9.Z\r\nHost: x\r\n\r\n'],
    ['space in a header name', 'GET /ping HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'],
    ['control character in a header value', 'GET /ping HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n'],
    [
      'Content-Length and Transfer-Encoding together',
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['non-numeric Content-Length', 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    [
      'bad chunk size',
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ],
    ['NUL bytes', Buffer.from([0, 0, 0, 13, 10, 13, 10]).toString('latin1')],
  ];
  for (const [name, raw] of malformed) {
    test(`${name} → 400 MALFORMED_REQUEST`, async () => {
      const rs = parse(await exchange(Buffer.from(raw, 'latin1')));
      assert.equal(rs.length, 1, JSON.stringify(rs));
      assertEnvelope(rs[0], 400, 'MALFORMED_REQUEST');
    });
  }

  test('keep-alive: an answered request, then a malformed one on the same connection', async () => {
    const rs = parse(await exchange('GET /ping HTTP/1.1\r\nHost: x\r\n\r\nBROKEN LINE\r\n\r\n'));
    assert.equal(rs.length, 2);
    assert.equal(rs[0]?.status, 200);
    assertEnvelope(rs[1], 400, 'MALFORMED_REQUEST');
  });
});

test('a request timeout answers 408 REQUEST_TIMEOUT in the same envelope', () => {
  const err = Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
  const [r] = parse(clientErrorResponse(err));
  assertEnvelope(r, 408, 'REQUEST_TIMEOUT');
});
