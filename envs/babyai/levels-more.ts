/**
 * The levels of AgentGym's 40 outside the paper's test mix, grouped by their minigrid file:
 * levels-open.ts, levels-pickup.ts, levels-unlock.ts, levels-putnext.ts, levels-synth.ts, and
 * the rest here.
 */
import type { LevelSpec } from './level.ts';
import { OPEN_LEVELS } from './levels-open.ts';
import { PICKUP_MORE_LEVELS } from './levels-pickup.ts';
import { UNLOCK_LEVELS } from './levels-unlock.ts';
import { PUTNEXT_LEVELS } from './levels-putnext.ts';
import { SYNTH_LEVELS } from './levels-synth.ts';

export const MORE_LEVELS: readonly LevelSpec[] = [...OPEN_LEVELS, ...PICKUP_MORE_LEVELS, ...UNLOCK_LEVELS, ...PUTNEXT_LEVELS, ...SYNTH_LEVELS];
