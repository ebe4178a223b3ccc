#!/usr/bin/env node
// The `tickbook` command (package.json "bin"): registers tsx so the TypeScript sources run as
// they are, then hands the arguments to src/cli/main.ts.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
// `start` keeps running (its listeners hold the event loop); every other command ends here.
if (code !== 0 || !process.argv.slice(2).includes('start')) process.exitCode = code;
