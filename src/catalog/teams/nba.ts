// The 30 NBA teams.

import type { TeamSeed } from '../types.ts';
import { pro } from './make.ts';

export const NBA_TEAMS: readonly TeamSeed[] = [
  pro('Atlanta Hawks', 'ATL'),
  pro('Boston Celtics', 'BOS'),
  pro('Brooklyn Nets', 'BKN'),
  pro('Charlotte Hornets', 'CHA'),
  pro('Chicago Bulls', 'CHI'),
  pro('Cleveland Cavaliers', 'CLE'),
  pro('Dallas Mavericks', 'DAL'),
  pro('Denver Nuggets', 'DEN'),
  pro('Detroit Pistons', 'DET'),
  pro('Golden State Warriors', 'GSW'),
  pro('Houston Rockets', 'HOU'),
  pro('Indiana Pacers', 'IND'),
  pro('Los Angeles Clippers', 'LAC'),
  pro('Los Angeles Lakers', 'LAL'),
  pro('Memphis Grizzlies', 'MEM'),
  pro('Miami Heat', 'MIA'),
  pro('Milwaukee Bucks', 'MIL'),
  pro('Minnesota Timberwolves', 'MIN'),
  pro('New Orleans Pelicans', 'NOP'),
  pro('New York Knicks', 'NYK'),
  pro('Oklahoma City Thunder', 'OKC'),
  pro('Orlando Magic', 'ORL'),
  pro('Philadelphia 76ers', 'PHI'),
  pro('Phoenix Suns', 'PHX'),
  pro('Portland Trail Blazers', 'POR', 'Trail Blazers'),
  pro('Sacramento Kings', 'SAC'),
  pro('San Antonio Spurs', 'SAS'),
  pro('Toronto Raptors', 'TOR'),
  pro('Utah Jazz', 'UTA'),
  pro('Washington Wizards', 'WAS'),
];
