// `tickbook issuer [set <url>]`: the token issuer the store records (docs/cluster.md "One issuer
// per store"). On the store itself, like `keys`: the first server start records it; `set` moves a
// store to a new public address, after which every process must be restarted and every token
// issued before is refused.

import { readIssuer, replaceIssuer } from '../../auth/issuer.ts';
import { printResult } from '../output.ts';
import { CliError, type Command } from '../types.ts';

export const issuerShow: Command = {
  name: 'issuer',
  summary: "Print the store's token issuer (recorded by the first server start)",
  async run(_args, ctx) {
    const issuer = (await readIssuer(await ctx.openStore())) ?? null;
    printResult(ctx, { issuer }, () => issuer ?? 'no issuer yet (the first server start records one)');
    return 0;
  },
};

export const issuerSet: Command = {
  name: 'issuer set',
  usage: '<url>',
  summary: "Replace the store's token issuer (restart every process; earlier tokens stop working)",
  async run(args, ctx) {
    const raw = args.positionals[0];
    if (raw === undefined || args.positionals.length > 1) throw new CliError('expected one URL', 2);
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new CliError(`expected an http or https URL, got ${JSON.stringify(raw)}`, 2);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      throw new CliError(`expected an http or https URL, got ${JSON.stringify(raw)}`, 2);
    }
    // The same form PUBLIC_BASE_URL takes in the configuration: no trailing slash.
    const issuer = raw.replace(/\/+$/, '');
    await replaceIssuer(await ctx.openStore(), issuer);
    printResult(ctx, { issuer }, () => `token issuer is now ${issuer}; restart every process of the store`);
    return 0;
  },
};
