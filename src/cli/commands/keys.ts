// `tickbook keys rotate|list`: act on the store directly (DATA_DIR or DATABASE_URL). A running
// server notices a rotation on its next key refresh (every 30 s) or at once when it meets a token
// with the new kid; old keys stay published until their last token expires.

import { KeyRing } from '../../auth/keys.ts';
import { printResult, table } from '../output.ts';
import type { CliContext, Command } from '../types.ts';

/** The store's key ring as it is: opening it never creates or rotates a key (`keys rotate` does). */
async function ring(ctx: CliContext): Promise<KeyRing> {
  const config = ctx.config();
  return KeyRing.open(
    await ctx.openStore(),
    {
      alg: config.tokenAlg,
      tokenTtlSeconds: config.tokenTtlSeconds,
      encryptionSecret: config.keyEncryptionSecret,
    },
    false,
  );
}

export const keysList: Command = {
  name: 'keys list',
  summary: 'List the token signing keys (current and still-published)',
  async run(_args, ctx) {
    const keys = (await ring(ctx)).list();
    printResult(ctx, keys, () =>
      keys.length === 0
        ? 'no signing keys yet (the server creates one on first start)'
        : table(keys as unknown as Record<string, unknown>[], [
            'kid',
            'alg',
            'current',
            'createdAt',
            'publishUntil',
          ]),
    );
    return 0;
  },
};

export const keysRotate: Command = {
  name: 'keys rotate',
  summary: 'Start signing with a new key (TOKEN_ALG); old keys stay published until their tokens expire',
  async run(_args, ctx) {
    const r = await ring(ctx);
    const key = await r.rotate();
    const info = r.list().find((k) => k.kid === key.kid)!;
    printResult(
      ctx,
      info,
      () => `new signing key ${info.kid} (${info.alg}); running servers switch within 30 s`,
    );
    return 0;
  },
};
