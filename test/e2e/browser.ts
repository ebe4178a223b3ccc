/// <reference lib="dom" />
// Debian's Chromium driven by playwright-core (docs/ui.md "Tests"): no browser download, one
// fresh profile per run, and the flags that keep a headless run off the network except to the
// server under test. Chromium absent: the e2e tests skip with a message, except in CI (CI=true),
// where .ci/run installs it and a missing browser is a failure.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));
export const SHOTS = join(root, '.tmp', 'e2e');

/** Why the browser tests cannot run here, or undefined when they can (throws in CI). */
export function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const why = `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`;
  if (process.env.CI) throw new Error(`${why}; in CI the browser tests must run`);
  return why;
}

export interface Browser {
  ctx: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launch(
  viewport = { width: 1280, height: 900 },
  extraArgs: string[] = [],
): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'tickbook-e2e-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  return {
    ctx,
    page,
    close: async () => {
      await ctx.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

let shotNo = 0;
/** A numbered full-page screenshot under .tmp/e2e/ (git-ignored). */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${String(++shotNo).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page (WCAG 2.x A and AA rules). Evaluated through the DevTools protocol,
 * which the page's CSP does not govern, so the check runs against the real CSP.
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is a global the script above installed
    const r = await (globalThis as any).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return r.violations.map((v: AxeViolation) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target })),
    }));
  });
}

export function serious(v: AxeViolation[]): AxeViolation[] {
  return v.filter((x) => x.impact === 'serious' || x.impact === 'critical');
}
