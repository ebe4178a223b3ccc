// `tickbook start` and `tickbook migrate`.

import type { Command } from '../types.ts';

export const start: Command = {
  name: 'start',
  summary: 'Start the server (same as npm start)',
  async run(_args, ctx) {
    // main.ts owns the start-up sequence (store, exchange, auth, listeners). This resolves once
    // the server listens; its listeners then keep the process running until a signal.
    const { startServer } = await import('../../main.ts');
    await startServer({ env: ctx.env, banner: true, signals: true });
    return 0;
  },
};

export const migrate: Command = {
  name: 'migrate',
  summary: 'Apply pending store migrations (DATA_DIR or DATABASE_URL) and exit',
  async run(_args, ctx) {
    // openStore migrates; report what this run applied and what is now applied.
    const store = await ctx.openStore();
    const applied = await store.appliedMigrations();
    const result = { store: store.kind, applied: ctx.lastMigrated ?? [], total: applied };
    if (ctx.json) ctx.out(JSON.stringify(result, null, 2));
    else {
      ctx.out(
        result.applied.length === 0
          ? `${store.kind}: up to date (${applied.length} migrations applied)`
          : `${store.kind}: applied ${result.applied.join(', ')}`,
      );
    }
    return 0;
  },
};
