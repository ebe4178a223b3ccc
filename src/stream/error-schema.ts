// The data of the stream's `error` frame (docs/stream.md "Messages"): the code and words a refused
// client message gets. messages.ts derives StreamErrorCode from it and message-schemas.ts publishes
// it, so the document lists every code the hub can send and no other.

export const STREAM_ERROR_CODES = [
  'BAD_JSON',
  'BAD_MESSAGE',
  'UNKNOWN_EVENT',
  'UNKNOWN_CHANNEL',
  'INSUFFICIENT_SCOPE',
  'TOO_MANY_SUBSCRIPTIONS',
  'NOT_SUBSCRIBED',
] as const;

export const streamErrorSchema = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: { code: { type: 'string', enum: STREAM_ERROR_CODES }, message: { type: 'string' } },
} as const;
