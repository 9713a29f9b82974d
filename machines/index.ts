/** Pure statecharts: each exports its machine and its input, context and event types. */
export { episodeMachine, type EpisodeEvent, type EpisodeInput, type EpisodeOutput, type EpisodeTurn } from './episode.machine.ts';
export { curriculumMachine, curriculumState, type CurriculumDecision, type CurriculumEvent, type CurriculumInput, type CurriculumEmitted, type CurriculumState } from './curriculum.machine.ts';
export { decideAdaptive, type AdaptiveMemory, type DecisionSignals, type HorizonDecision, type StepSignals } from './adaptive-horizon.ts';
export { rolloutBufferMachine, hasRoom, type BufferEvent, type BufferInput, type Group, type LedgerCounts } from './rollout-buffer.machine.ts';
export { runMachine, type EpisodeLaunch, type RunEventIn, type RunInput, type SlotSpec } from './run.machine.ts';
export { parseSchedule, horizonAt, formatSchedule, type AdaptiveSchedule, type Schedule } from './schedule.ts';
export { deriveSeed } from './seed.ts';
export type { AbortReason, EpisodeOutcome, OutcomeCounts } from './outcome.ts';
