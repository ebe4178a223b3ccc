// The /tape channel names of the server's channel table (src/stream/channels.ts), written by
// scripts/stream-channels.ts; do not edit by hand (test/stream/channels.test.ts checks it).

export const STREAM_CHANNELS = {
  tape: 'tape',
  lifecycle: 'lifecycle',
  private: 'private',
  parlayRequests: 'parlayRequests',
  boosts: 'boosts',
} as const;
