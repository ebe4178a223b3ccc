// Human output: aligned columns. Machine output (--json) is plain JSON.stringify.

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cell = (v: unknown) =>
    v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(' ') : String(v);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

export function printResult(
  ctx: { json: boolean; out(t: string): void },
  value: unknown,
  human: () => string,
): void {
  ctx.out(ctx.json ? JSON.stringify(value, null, 2) : human());
}
