// The 32 NFL clubs. For professional teams the production API uses the nickname as both
// shortName and mascot ("Buffalo Bills" / "Bills" / "BUF" / "Bills").

import type { TeamSeed } from '../types.ts';
import { pro } from './make.ts';

export const NFL_TEAMS: readonly TeamSeed[] = [
  pro('Arizona Cardinals', 'ARI'),
  pro('Atlanta Falcons', 'ATL'),
  pro('Baltimore Ravens', 'BAL'),
  pro('Buffalo Bills', 'BUF'),
  pro('Carolina Panthers', 'CAR'),
  pro('Chicago Bears', 'CHI'),
  pro('Cincinnati Bengals', 'CIN'),
  pro('Cleveland Browns', 'CLE'),
  pro('Dallas Cowboys', 'DAL'),
  pro('Denver Broncos', 'DEN'),
  pro('Detroit Lions', 'DET'),
  pro('Green Bay Packers', 'GB'),
  pro('Houston Texans', 'HOU'),
  pro('Indianapolis Colts', 'IND'),
  pro('Jacksonville Jaguars', 'JAX'),
  pro('Kansas City Chiefs', 'KC'),
  pro('Las Vegas Raiders', 'LV'),
  pro('Los Angeles Chargers', 'LAC'),
  pro('Los Angeles Rams', 'LAR'),
  pro('Miami Dolphins', 'MIA'),
  pro('Minnesota Vikings', 'MIN'),
  pro('New England Patriots', 'NE'),
  pro('New Orleans Saints', 'NO'),
  pro('New York Giants', 'NYG'),
  pro('New York Jets', 'NYJ'),
  pro('Philadelphia Eagles', 'PHI'),
  pro('Pittsburgh Steelers', 'PIT'),
  pro('San Francisco 49ers', 'SF'),
  pro('Seattle Seahawks', 'SEA'),
  pro('Tampa Bay Buccaneers', 'TB'),
  pro('Tennessee Titans', 'TEN'),
  pro('Washington Commanders', 'WAS'),
];
