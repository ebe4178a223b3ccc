// The access log: one line per request, written when the response has been sent.
//
// Fastify's default LogController writes two lines per request ("incoming request" with the
// serialized request, "request completed" with the serialized reply). At the shipped LOG_LEVEL=info
// those two lines and their serializers were the largest cost of a small cached GET
// (docs/bench-read-path.md), so this controller writes one flat line instead — method, URL
// (secrets in the query masked), status, milliseconds — which is what an operator greps for.
// Requests that fail with an error are logged at error level with the error, as Fastify does.

import { LogController } from 'fastify';
import { redactUrl } from './logger.ts';

export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: Parameters<LogController['requestCompleted']>[1],
    reply: Parameters<LogController['requestCompleted']>[2],
  ): void {
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
