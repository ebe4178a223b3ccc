// The twenty Premier League clubs of the 2025–26 season.

import type { TeamSeed } from '../types.ts';
import { club } from './make.ts';

export const EPL_TEAMS: readonly TeamSeed[] = [
  club('Arsenal', 'Arsenal', 'ARS', 'Gunners'),
  club('Aston Villa', 'Aston Villa', 'AVL', 'Villans'),
  club('AFC Bournemouth', 'Bournemouth', 'BOU', 'Cherries'),
  club('Brentford', 'Brentford', 'BRE', 'Bees'),
  club('Brighton & Hove Albion', 'Brighton', 'BHA', 'Seagulls'),
  club('Burnley', 'Burnley', 'BUR', 'Clarets'),
  club('Chelsea', 'Chelsea', 'CHE', 'Blues'),
  club('Crystal Palace', 'Crystal Palace', 'CRY', 'Eagles'),
  club('Everton', 'Everton', 'EVE', 'Toffees'),
  club('Fulham', 'Fulham', 'FUL', 'Cottagers'),
  club('Leeds United', 'Leeds', 'LEE', 'Whites'),
  club('Liverpool', 'Liverpool', 'LIV', 'Reds'),
  club('Manchester City', 'Man City', 'MCI', 'Citizens'),
  club('Manchester United', 'Man United', 'MUN', 'Red Devils'),
  club('Newcastle United', 'Newcastle', 'NEW', 'Magpies'),
  club('Nottingham Forest', "Nott'm Forest", 'NFO', 'Tricky Trees'),
  club('Sunderland', 'Sunderland', 'SUN', 'Black Cats'),
  club('Tottenham Hotspur', 'Tottenham', 'TOT', 'Spurs'),
  club('West Ham United', 'West Ham', 'WHU', 'Hammers'),
  club('Wolverhampton Wanderers', 'Wolves', 'WOL', 'Wolves'),
];
