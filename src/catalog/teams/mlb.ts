// The 30 MLB clubs.

import type { TeamSeed } from '../types.ts';
import { pro } from './make.ts';

export const MLB_TEAMS: readonly TeamSeed[] = [
  pro('Arizona Diamondbacks', 'ARI'),
  pro('Athletics', 'ATH', 'Athletics'),
  pro('Atlanta Braves', 'ATL'),
  pro('Baltimore Orioles', 'BAL'),
  pro('Boston Red Sox', 'BOS', 'Red Sox'),
  pro('Chicago Cubs', 'CHC'),
  pro('Chicago White Sox', 'CWS', 'White Sox'),
  pro('Cincinnati Reds', 'CIN'),
  pro('Cleveland Guardians', 'CLE'),
  pro('Colorado Rockies', 'COL'),
  pro('Detroit Tigers', 'DET'),
  pro('Houston Astros', 'HOU'),
  pro('Kansas City Royals', 'KC'),
  pro('Los Angeles Angels', 'LAA'),
  pro('Los Angeles Dodgers', 'LAD'),
  pro('Miami Marlins', 'MIA'),
  pro('Milwaukee Brewers', 'MIL'),
  pro('Minnesota Twins', 'MIN'),
  pro('New York Mets', 'NYM'),
  pro('New York Yankees', 'NYY'),
  pro('Philadelphia Phillies', 'PHI'),
  pro('Pittsburgh Pirates', 'PIT'),
  pro('San Diego Padres', 'SD'),
  pro('San Francisco Giants', 'SF'),
  pro('Seattle Mariners', 'SEA'),
  pro('St. Louis Cardinals', 'STL'),
  pro('Tampa Bay Rays', 'TB'),
  pro('Texas Rangers', 'TEX'),
  pro('Toronto Blue Jays', 'TOR', 'Blue Jays'),
  pro('Washington Nationals', 'WSH'),
];
