// The 32 NHL clubs.

import type { TeamSeed } from '../types.ts';
import { pro } from './make.ts';

export const NHL_TEAMS: readonly TeamSeed[] = [
  pro('Anaheim Ducks', 'ANA'),
  pro('Boston Bruins', 'BOS'),
  pro('Buffalo Sabres', 'BUF'),
  pro('Calgary Flames', 'CGY'),
  pro('Carolina Hurricanes', 'CAR'),
  pro('Chicago Blackhawks', 'CHI'),
  pro('Colorado Avalanche', 'COL'),
  pro('Columbus Blue Jackets', 'CBJ', 'Blue Jackets'),
  pro('Dallas Stars', 'DAL'),
  pro('Detroit Red Wings', 'DET', 'Red Wings'),
  pro('Edmonton Oilers', 'EDM'),
  pro('Florida Panthers', 'FLA'),
  pro('Los Angeles Kings', 'LAK'),
  pro('Minnesota Wild', 'MIN'),
  pro('Montreal Canadiens', 'MTL'),
  pro('Nashville Predators', 'NSH'),
  pro('New Jersey Devils', 'NJD'),
  pro('New York Islanders', 'NYI'),
  pro('New York Rangers', 'NYR'),
  pro('Ottawa Senators', 'OTT'),
  pro('Philadelphia Flyers', 'PHI'),
  pro('Pittsburgh Penguins', 'PIT'),
  pro('San Jose Sharks', 'SJS'),
  pro('Seattle Kraken', 'SEA'),
  pro('St. Louis Blues', 'STL'),
  pro('Tampa Bay Lightning', 'TBL'),
  pro('Toronto Maple Leafs', 'TOR', 'Maple Leafs'),
  pro('Utah Mammoth', 'UTA'),
  pro('Vancouver Canucks', 'VAN'),
  pro('Vegas Golden Knights', 'VGK', 'Golden Knights'),
  pro('Washington Capitals', 'WSH'),
  pro('Winnipeg Jets', 'WPG'),
];
