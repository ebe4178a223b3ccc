// Throttling of failed client authentication (docs/auth.md "Throttling"): failures count per
// (client_id, address) and (with a looser limit) per address, so whoever sends wrong secrets slows only themselves — the
// client's owner with the right secret from another address still gets tokens — and 429 keeps its
// Retry-After. IPv6 addresses count by their /64, which one host can rotate through freely.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CreatedClient } from '../../src/auth/service.ts';
import { ADDRESS_FACTOR, throttleAddress } from '../../src/auth/throttle.ts';
import type { Store } from '../../src/store/types.ts';
import { openStore, startServer, type TestServer } from './helpers.ts';

const TOKEN = '/nbx/v1/auth/emm-token';
const LIMIT = 3;

let store: Store;
let srv: TestServer;
before(async () => {
  store = await openStore();
  srv = await startServer(store, { env: { AUTH_FAILURE_LIMIT: String(LIMIT) } });
});
after(async () => {
  await srv.close();
  await store.close();
});

const post = (clientId: string, secret: string, ip: string) =>
  srv.app.inject({
    method: 'POST',
    url: TOKEN,
    remoteAddress: ip,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
  });

function assertThrottled(r: Awaited<ReturnType<typeof post>>): void {
  assert.equal(r.statusCode, 429, r.body);
  assert.equal(r.json().error, 'temporarily_unavailable');
  const ra = Number(r.headers['retry-after']);
  assert.ok(Number.isInteger(ra) && ra >= 1 && ra <= 60, String(ra));
}

let c: CreatedClient;
let n = 0;
const fresh = async () => {
  c = await srv.auth.createClient({ name: `throttled-${n++}`, scopes: ['read:tape'] });
  return c;
};

describe('failed client authentication throttle', () => {
  test('wrong secrets from one address throttle that address, not the owner elsewhere', async () => {
    await fresh();
    for (let i = 0; i < LIMIT; i++)
      assert.equal((await post(c.clientId, 'wrong', '10.0.0.1')).statusCode, 401);
    // The attacking address: 429 with Retry-After, even with the right secret (guessing stays bounded).
    assertThrottled(await post(c.clientId, c.clientSecret, '10.0.0.1'));
    assertThrottled(await post(c.clientId, 'wrong', '10.0.0.1'));
    // The owner from another address: tokens as usual, however often the attacker keeps trying.
    for (let i = 0; i < 2 * LIMIT; i++) assertThrottled(await post(c.clientId, 'wrong', '10.0.0.1'));
    const owner = await post(c.clientId, c.clientSecret, '10.0.1.1');
    assert.equal(owner.statusCode, 200, owner.body);
    assert.ok(owner.json().access_token);
    // A wrong secret from the owner's address is an ordinary 401, not a 429.
    assert.equal((await post(c.clientId, 'typo', '10.0.1.1')).statusCode, 401);
  });

  test('wrong secrets from many addresses do not lock the client out', async () => {
    await fresh();
    for (let i = 0; i < 4 * LIMIT; i++) {
      assert.equal((await post(c.clientId, 'wrong', `10.1.${i}.1`)).statusCode, 401);
    }
    assert.equal((await post(c.clientId, c.clientSecret, '10.2.0.1')).statusCode, 200);
  });

  test('one address failing against many client ids is throttled for every client', async () => {
    await fresh();
    // The address limit is ADDRESS_FACTOR × the per-(client, address) one.
    for (let i = 0; i < ADDRESS_FACTOR * LIMIT; i++) {
      assert.equal((await post(`guess-${i}`, 'x', '10.9.9.9')).statusCode, 401);
    }
    assertThrottled(await post(c.clientId, c.clientSecret, '10.9.9.9'));
    assert.equal((await post(c.clientId, c.clientSecret, '10.9.9.10')).statusCode, 200);
  });

  test('IPv6: addresses of one /64 count together; another /64 is not affected', async () => {
    await fresh();
    const hosts = ['2001:db8:1:2::a', '2001:db8:1:2:0:0:0:b', '2001:0db8:0001:0002:ffff::c'];
    for (const ip of hosts) assert.equal((await post(c.clientId, 'wrong', ip)).statusCode, 401);
    assertThrottled(await post(c.clientId, c.clientSecret, '2001:db8:1:2:1234::1'));
    assert.equal((await post(c.clientId, c.clientSecret, '2001:db8:1:3::a')).statusCode, 200);
  });

  test('the failures are counted in the auth failure metric', async () => {
    const m = await srv.metrics.authFailures.get();
    const by = (reason: string) => m.values.find((v) => v.labels.reason === reason)?.value ?? 0;
    assert.ok(by('invalid_client') >= 4 * LIMIT);
    assert.ok(by('throttled') >= 4);
  });
});

describe('throttleAddress', () => {
  test('IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
    assert.equal(throttleAddress('192.0.2.7'), '192.0.2.7');
    assert.equal(throttleAddress('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(throttleAddress('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(throttleAddress('2001:0DB8:0:0:1:2:3:4'), '2001:db8:0:0::/64');
    assert.equal(throttleAddress('::1'), '0:0:0:0::/64');
    assert.equal(throttleAddress('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(throttleAddress('1:2:3::7:1.2.3.4'), '1:2:3:0::/64');
    assert.equal(throttleAddress('1:2::5:6:7:1.2.3.4'), '1:2:0:5::/64');
    assert.equal(throttleAddress('not an address'), 'not an address');
  });
});
