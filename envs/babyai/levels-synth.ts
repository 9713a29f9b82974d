/**
 * SynthS5R2, SynthSeq, MiniBossLevel, BossLevel and BossLevelNoUnlock of AgentGym's 40, after
 * minigrid/envs/babyai/synth.py: all of them are `LevelGen` (core/levelgen.py) with other
 * keyword arguments; LEVELGEN_DEFAULTS holds LevelGen's own defaults (3×3 rooms of size 8).
 */
import { LEVELGEN_DEFAULTS, levelGenMission, type LevelGenOptions } from './levelgen.ts';
import type { Family, LevelSpec } from './level.ts';

function levelGen(
  name: string,
  family: Family,
  size: { roomSize: number; numRows: number; numCols: number },
  opts: Partial<LevelGenOptions>,
): LevelSpec {
  const options: LevelGenOptions = { ...LEVELGEN_DEFAULTS, ...opts };
  return { name, family, ...size, unblocking: options.unblocking, gen: (g) => levelGenMission(g, options) };
}

/** `Synth`: single actions, no location words, the locked room's objects never the target. */
const SYNTH: Partial<LevelGenOptions> = { instrKinds: ['action'], locations: false, unblocking: true, implicitUnlock: false };

export const SYNTH_LEVELS: readonly LevelSpec[] = [
  // Registered as Synth with room_size=5, num_rows=2 (minigrid/__init__.py); num_cols stays 3.
  levelGen('SynthS5R2', 'Synth', { roomSize: 5, numRows: 2, numCols: 3 }, SYNTH),
  // "and", ", then" and "after you" missions with location words; no implicit unlocking.
  levelGen('SynthSeq', 'Synth', { roomSize: 8, numRows: 3, numCols: 3 }, { locations: true, unblocking: true, implicitUnlock: false }),
  levelGen('MiniBossLevel', 'Boss', { roomSize: 5, numRows: 2, numCols: 2 }, { numDists: 7, lockedRoomProb: 0.25 }),
  levelGen('BossLevel', 'Boss', { roomSize: 8, numRows: 3, numCols: 3 }, {}),
  levelGen('BossLevelNoUnlock', 'Boss', { roomSize: 8, numRows: 3, numCols: 3 }, { lockedRoomProb: 0, implicitUnlock: false }),
];
