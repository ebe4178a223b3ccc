// The Major League Soccer clubs (30 since San Diego FC joined in 2025).

import type { TeamSeed } from '../types.ts';
import { club } from './make.ts';

export const MLS_TEAMS: readonly TeamSeed[] = [
  club('Atlanta United FC', 'Atlanta United', 'ATL', 'Five Stripes'),
  club('Austin FC', 'Austin', 'ATX', 'Verde'),
  club('CF Montréal', 'Montréal', 'MTL', 'Bleu-blanc-noir'),
  club('Charlotte FC', 'Charlotte', 'CLT', 'The Crown'),
  club('Chicago Fire FC', 'Chicago Fire', 'CHI', 'Men in Red'),
  club('Colorado Rapids', 'Colorado', 'COL', 'Rapids'),
  club('Columbus Crew', 'Columbus', 'CLB', 'Crew'),
  club('D.C. United', 'D.C. United', 'DC', 'Black-and-Red'),
  club('FC Cincinnati', 'Cincinnati', 'CIN', 'The Orange and Blue'),
  club('FC Dallas', 'Dallas', 'DAL', 'Toros'),
  club('Houston Dynamo FC', 'Houston', 'HOU', 'Dynamo'),
  club('Inter Miami CF', 'Inter Miami', 'MIA', 'The Herons'),
  club('LA Galaxy', 'LA Galaxy', 'LA', 'Galaxy'),
  club('Los Angeles FC', 'LAFC', 'LAFC', 'Black & Gold'),
  club('Minnesota United FC', 'Minnesota', 'MIN', 'Loons'),
  club('Nashville SC', 'Nashville', 'NSH', 'The Coyotes'),
  club('New England Revolution', 'New England', 'NE', 'Revs'),
  club('New York City FC', 'NYCFC', 'NYC', 'The Pigeons'),
  club('New York Red Bulls', 'NY Red Bulls', 'RBNY', 'Red Bulls'),
  club('Orlando City SC', 'Orlando City', 'ORL', 'The Lions'),
  club('Philadelphia Union', 'Philadelphia', 'PHI', 'The U'),
  club('Portland Timbers', 'Portland', 'POR', 'Timbers'),
  club('Real Salt Lake', 'Real Salt Lake', 'RSL', 'The Claret-and-Cobalt'),
  club('San Diego FC', 'San Diego', 'SD', 'SDFC'),
  club('San Jose Earthquakes', 'San Jose', 'SJ', 'Quakes'),
  club('Seattle Sounders FC', 'Seattle', 'SEA', 'Sounders'),
  club('Sporting Kansas City', 'Sporting KC', 'SKC', 'Sporting'),
  club('St. Louis City SC', 'St. Louis City', 'STL', 'CITY'),
  club('Toronto FC', 'Toronto', 'TOR', 'The Reds'),
  club('Vancouver Whitecaps FC', 'Vancouver', 'VAN', 'Caps'),
];
