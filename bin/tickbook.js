#!/usr/bin/env node
// The `tickbook` command (package.json "bin"): registers tsx so the TypeScript sources run as
// they are, then hands the arguments to src/cli/main.ts.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
// Setting the exit code does not end the process: after a successful `start` (code 0) its
// listeners keep it running until SIGINT/SIGTERM; every other command ends here.
process.exitCode = code;
