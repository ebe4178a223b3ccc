// What the token server needs from the rest of the process: the exchange's accounts (a trader
// client acts for one) and a logger. main.ts wires both.

/** The exchange's accounts, as the token server needs them (wired by main.ts). */
export interface AccountsPort {
  /** Opens a fresh account and returns its id. */
  create(): Promise<string>;
  exists(id: string): boolean;
}

/** The subset of a pino logger used here (Fastify's app.log and pino both fit). */
export interface AuthLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
