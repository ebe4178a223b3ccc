// The OAuth request bodies checked by their schemas (src/auth/oauth-bodies.ts): every failure is
// the RFC 6749 §5.2 error, status and description the endpoints answered before the schemas, in
// the same order (the body's shape, each parameter in turn, then the grant).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LEGACY_TOKEN_BODY, TOKEN_BODY, TOKEN_HINT_BODY } from '../../src/auth/oauth-bodies.ts';
import { OAuthError } from '../../src/auth/oauth-errors.ts';

/** The error `read` throws, as the wire carries it. */
function refusal(read: () => unknown): { status: number; body: unknown } {
  try {
    read();
  } catch (err) {
    assert.ok(err instanceof OAuthError, String(err));
    return { status: err.status, body: err.body() };
  }
  assert.fail('expected a refusal');
}

const invalid = (error_description: string) => ({
  status: 400,
  body: { error: 'invalid_request', error_description },
});
const good = { grant_type: 'client_credentials', client_id: 'c', client_secret: 's' };

describe('token request body', () => {
  const cases: [string, unknown, ReturnType<typeof invalid>][] = [
    ['a JSON array', [1, 2], invalid('The request body must be a JSON object or a form')],
    ['a JSON string', 'client_credentials', invalid('The request body must be a JSON object or a form')],
    ['a number', 7, invalid('The request body must be a JSON object or a form')],
    [
      'grant_type a number',
      { ...good, grant_type: 1 },
      invalid('Parameter grant_type must be a single string'),
    ],
    [
      'client_id a number',
      { ...good, client_id: 123 },
      invalid('Parameter client_id must be a single string'),
    ],
    [
      'a repeated form parameter',
      { ...good, client_secret: ['a', 'b'] },
      invalid('Parameter client_secret must be a single string'),
    ],
    ['scope an array', { ...good, scope: ['read:tape'] }, invalid('Parameter scope must be a single string')],
    ['audience null', { ...good, audience: null }, invalid('Parameter audience must be a single string')],
    // The shape is reported before the grant, parameters in their order.
    [
      'no grant and a bad client_id',
      { client_id: 5 },
      invalid('Parameter client_id must be a single string'),
    ],
    [
      'two bad parameters',
      { grant_type: 'password', scope: 1, client_id: 2 },
      invalid('Parameter client_id must be a single string'),
    ],
    ['no grant_type', { client_id: 'c', client_secret: 's' }, invalid('Missing grant_type')],
    ['an empty grant_type', { ...good, grant_type: '' }, invalid('Missing grant_type')],
    ['JSON null', null, invalid('Missing grant_type')],
    ['no body', undefined, invalid('Missing grant_type')],
  ];
  for (const [name, body, expected] of cases) {
    test(`${name} → ${expected.body.error_description}`, () => {
      assert.deepEqual(
        refusal(() => TOKEN_BODY.read(body)),
        expected,
      );
      assert.deepEqual(
        refusal(() => LEGACY_TOKEN_BODY.read(body)),
        expected,
      );
    });
  }

  test('another grant is unsupported_grant_type', () => {
    for (const grant_type of ['password', 'authorization_code', 'CLIENT_CREDENTIALS']) {
      assert.deepEqual(
        refusal(() => TOKEN_BODY.read({ ...good, grant_type })),
        {
          status: 400,
          body: {
            error: 'unsupported_grant_type',
            error_description: 'Only grant_type=client_credentials is supported',
          },
        },
      );
    }
  });

  test('a good body passes as it is; unknown fields are ignored, credentials may be absent', () => {
    const body = { ...good, scope: 'read:tape', audience: 'x', extra: 1 };
    assert.equal(TOKEN_BODY.read(body), body);
    assert.deepEqual(TOKEN_BODY.read({ grant_type: 'client_credentials' }), {
      grant_type: 'client_credentials',
    });
  });

  test('the route publishes the schema it validates with', () => {
    const [shape] = TOKEN_BODY.schema.allOf as [{ properties: Record<string, unknown> }];
    assert.deepEqual(Object.keys(shape.properties), [
      'grant_type',
      'client_id',
      'client_secret',
      'scope',
      'audience',
    ]);
    const legacy = LEGACY_TOKEN_BODY.schema.allOf[0] as { properties: { audience: { description: string } } };
    assert.match(legacy.properties.audience.description, /^Required/);
  });
});

describe('revocation and introspection body', () => {
  test('the shape and each parameter as before; the token itself is checked after authentication', () => {
    assert.deepEqual(
      refusal(() => TOKEN_HINT_BODY.read([])),
      invalid('The request body must be a JSON object or a form'),
    );
    assert.deepEqual(
      refusal(() => TOKEN_HINT_BODY.read({ token: 1 })),
      invalid('Parameter token must be a single string'),
    );
    assert.deepEqual(
      refusal(() => TOKEN_HINT_BODY.read({ token: 't', token_type_hint: ['a'] })),
      invalid('Parameter token_type_hint must be a single string'),
    );
    assert.deepEqual(TOKEN_HINT_BODY.read({ client_id: 'c' }), { client_id: 'c' });
    assert.deepEqual(TOKEN_HINT_BODY.read(null), {});
  });
});
