// What the token server needs from the rest of the process: the exchange's accounts (a trader
// client acts for one; `accountsOf` in src/runtime/exchange-port.ts serves them). main.ts wires it.

/** The exchange's accounts, as the token server needs them (wired by main.ts). */
export interface AccountsPort {
  /** Opens a fresh account and returns its id. */
  create(): Promise<string>;
  exists(id: string): boolean;
}
