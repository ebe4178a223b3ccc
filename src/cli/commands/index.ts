// The command table. Add a command by exporting it from a module here and listing it below.

import type { Command } from '../types.ts';
import { boostsCreate, boostsEnd, boostsList } from './boosts.ts';
import {
  clientsCreate,
  clientsDisable,
  clientsEnable,
  clientsList,
  clientsRevoke,
  clientsRotate,
} from './clients.ts';
import {
  accountsDeposit,
  accountsWithdraw,
  eventsStatus,
  importCmd,
  locksClear,
  locksList,
  locksSet,
  marketsSettle,
  marketsStatus,
  seed,
} from './exchange.ts';
import { issuerSet, issuerShow } from './issuer.ts';
import { keysList, keysRotate } from './keys.ts';
import { migrate, start } from './server.ts';

export const COMMANDS: readonly Command[] = [
  start,
  migrate,
  clientsCreate,
  clientsList,
  clientsRotate,
  clientsRevoke,
  clientsDisable,
  clientsEnable,
  keysRotate,
  keysList,
  issuerShow,
  issuerSet,
  seed,
  importCmd,
  eventsStatus,
  marketsStatus,
  marketsSettle,
  locksSet,
  locksClear,
  locksList,
  accountsDeposit,
  accountsWithdraw,
  boostsCreate,
  boostsList,
  boostsEnd,
];
