// Command-line options of the benches: `--name value` pairs, read the same way everywhere.

/** The value after `--name`, or undefined when the option is absent. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** The number after `--name`, or `fallback` when the option is absent. */
export function numArg(name: string, fallback: number): number {
  const v = arg(name);
  return v === undefined ? fallback : Number(v);
}

/** The value after `--name`; prints `usage` and exits 2 when it is absent. */
export function requiredArg(name: string, usage: string): string {
  const v = arg(name);
  if (!v) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return v;
}
