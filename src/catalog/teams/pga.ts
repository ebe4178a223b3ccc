// PGA Tour golfers. A PGA "game" is a head-to-head round matchup of two golfers (lower
// 18-hole score wins); see docs/catalog.md.

import type { TeamSeed } from '../types.ts';
import { person } from './make.ts';

export const PGA_GOLFERS: readonly TeamSeed[] = [
  person('Scottie Scheffler', 'SCHEF'),
  person('Rory McIlroy', 'MCIL', 'Rors'),
  person('Xander Schauffele', 'XAND'),
  person('Collin Morikawa', 'MORI'),
  person('Ludvig Åberg', 'ABERG'),
  person('Justin Thomas', 'JT'),
  person('Patrick Cantlay', 'CANT', 'Patty Ice'),
  person('Viktor Hovland', 'HOVL'),
  person('Tommy Fleetwood', 'FLEET'),
  person('Hideki Matsuyama', 'MATSU'),
  person('Jordan Spieth', 'SPIE'),
  person('Bryson DeChambeau', 'BDC', 'The Scientist'),
  person('Jon Rahm', 'RAHM', 'Rahmbo'),
  person('Wyndham Clark', 'CLARK'),
  person('Sahith Theegala', 'THEE'),
  person('Tony Finau', 'FINAU'),
  person('Max Homa', 'HOMA'),
  person('Sam Burns', 'BURNS'),
  person('Keegan Bradley', 'BRAD'),
  person('Russell Henley', 'HENL'),
  person('Shane Lowry', 'LOWRY'),
  person('Robert MacIntyre', 'MACI', 'Bob'),
  person('Sungjae Im', 'IM'),
  person('Tom Kim', 'TKIM'),
];
