// Small constructors for the team tables, so each table reads as plain data.

import type { TeamSeed } from '../types.ts';

/** A professional team whose nickname is its last word(s): pro('Buffalo Bills', 'BUF'). */
export function pro(name: string, symbol: string, nickname?: string): TeamSeed {
  const nick = nickname ?? name.slice(name.lastIndexOf(' ') + 1);
  return { name, shortName: nick, symbol, mascot: nick };
}

/** A college program: school name as shortName, nickname as mascot. */
export function college(school: string, mascot: string, symbol: string): TeamSeed {
  return { name: `${school} ${mascot}`, shortName: school, symbol, mascot };
}

/** A football (soccer) club: club name, short name, symbol and its traditional nickname. */
export function club(name: string, shortName: string, symbol: string, nickname: string): TeamSeed {
  return { name, shortName, symbol, mascot: nickname };
}

/** An individual competitor (fighter, golfer): surname as shortName, nickname as mascot. */
export function person(name: string, symbol: string, nickname?: string): TeamSeed {
  const surname = name.slice(name.lastIndexOf(' ') + 1);
  return { name, shortName: surname, symbol, mascot: nickname ?? surname };
}
