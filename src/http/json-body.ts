// The JSON body parser, with one difference from Fastify's default: an EMPTY body under a JSON
// content type is no body. Many clients of the production API (Python httpx/aiohttp sessions, Node
// fetch wrappers) set `Content-Type: application/json` on every request, DELETE and GET included;
// Fastify's default parser refuses such a request with FST_ERR_CTP_EMPTY_JSON_BODY. RFC 9110 §8.6
// lets a zero-length content mean "no content", so a route that takes no body simply runs, and a
// route that needs one fails its body schema (VALIDATION_FAILED) rather than MALFORMED_JSON. A
// non-empty body that is not JSON (whitespace only included) is still MALFORMED_JSON (docs/http.md).

import type { FastifyInstance } from 'fastify';

export function registerJsonBodyParser(app: FastifyInstance): void {
  // Same prototype-poisoning protection as Fastify's default ('error' on __proto__/constructor).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
