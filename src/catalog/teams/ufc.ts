// UFC fighters. A UFC "game" is one bout: a head-to-head matchup of two competitors, the second
// named fighter as "home" (docs/catalog.md). Nicknames are the mascot.

import type { TeamSeed } from '../types.ts';
import { person } from './make.ts';

export const UFC_FIGHTERS: readonly TeamSeed[] = [
  person('Jon Jones', 'JONES', 'Bones'),
  person('Tom Aspinall', 'ASPIN'),
  person('Alex Pereira', 'PERE', 'Poatan'),
  person('Magomed Ankalaev', 'ANKA'),
  person('Dricus du Plessis', 'DDP', 'Stillknocks'),
  person('Khamzat Chimaev', 'CHIM', 'Borz'),
  person('Islam Makhachev', 'MAKH'),
  person('Ilia Topuria', 'TOPU', 'El Matador'),
  person('Belal Muhammad', 'BELAL', 'Remember the Name'),
  person('Jack Della Maddalena', 'JDM'),
  person('Leon Edwards', 'EDWA', 'Rocky'),
  person('Charles Oliveira', 'OLIV', 'Do Bronx'),
  person('Justin Gaethje', 'GAETH', 'The Highlight'),
  person('Dustin Poirier', 'POIR', 'The Diamond'),
  person('Max Holloway', 'HOLL', 'Blessed'),
  person('Alexander Volkanovski', 'VOLK', 'The Great'),
  person('Merab Dvalishvili', 'MERAB', 'The Machine'),
  person("Sean O'Malley", 'OMAL', 'Suga'),
  person('Alexandre Pantoja', 'PANT', 'The Cannibal'),
  person('Brandon Moreno', 'MORE', 'The Assassin Baby'),
  person('Sean Strickland', 'STRI', 'Tarzan'),
  person('Israel Adesanya', 'ADES', 'The Last Stylebender'),
  person('Arman Tsarukyan', 'TSAR', 'Ahalkalakets'),
  person('Shavkat Rakhmonov', 'RAKH', 'Nomad'),
];
