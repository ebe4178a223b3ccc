// Writes ui/src/stream-channels.ts, the browser's list of /tape channel names, from the channel
// table (src/stream/channels.ts), so the UI names no channel the server does not have.
// test/stream/channels.test.ts fails when the file is out of date.
//
//   node --import tsx scripts/stream-channels.ts

import { writeFileSync } from 'node:fs';
import { CHANNELS } from '../src/stream/channels.ts';

/** The text of ui/src/stream-channels.ts. */
export function uiChannelModule(): string {
  const quote = (s: string) => `'${s.replace(/['\\]/g, '\\$&')}'`;
  const key = (s: string) => (/^[A-Za-z_$][\w$]*$/.test(s) ? s : quote(s));
  const entries = CHANNELS.map((ch) => `  ${key(ch.name)}: ${quote(ch.name)},`);
  return [
    "// The /tape channel names of the server's channel table (src/stream/channels.ts), written by",
    '// scripts/stream-channels.ts; do not edit by hand (test/stream/channels.test.ts checks it).',
    '',
    'export const STREAM_CHANNELS = {',
    ...entries,
    '} as const;',
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('../ui/src/stream-channels.ts', import.meta.url), uiChannelModule());
}
