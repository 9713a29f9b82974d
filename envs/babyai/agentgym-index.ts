/**
 * AgentGym's `data_idx` → task mapping for BabyAI (agentenv-babyai/agentenv_babyai/
 * environment.py, `BabyAIEnv.reset`): level `all_levels[data_idx % 40 + 1]` of its 40-level
 * table (1-based), seed `data_idx // 40`. Our task id for it is `<level>/<seed>/minigrid`, the
 * very grid and mission the original builds (numpy's stream and minigrid's own draw order; see
 * experiments/babyai-layout-parity/). `dataIdxOf` also accepts our own `<level>/<seed>` ids (same
 * level and seed number, our grid), so demos of our splits export with an item id.
 */
import { EnvError, type AgentGymTaskIndex } from '../contract.ts';
import { MAX_SEED, parseTaskId, LEVEL_BY_NAME } from './tasks.ts';

/** `all_levels` of environment.py in key order 1..40, without `BabyAI-` and `-v0`. */
export const AGENTGYM_LEVELS: readonly string[] = [
  'GoToRedBallGrey', 'GoToRedBall', 'GoToRedBallNoDists', 'GoToObjS6', 'GoToLocalS8N7',
  'GoToObjMazeS7', 'GoToImpUnlock', 'GoToSeqS5R2', 'GoToRedBlueBall', 'GoToDoor',
  'GoToObjDoor', 'Open', 'OpenRedDoor', 'OpenDoorLoc', 'OpenRedBlueDoorsDebug',
  'OpenDoorsOrderN4Debug', 'Pickup', 'UnblockPickup', 'PickupLoc', 'PickupDistDebug',
  'PickupAbove', 'PutNextLocalS6N4', 'PutNextS7N4Carrying', 'Unlock', 'UnlockLocalDist',
  'KeyInBox', 'UnlockPickupDist', 'BlockedUnlockPickup', 'UnlockToUnlock', 'ActionObjDoor',
  'FindObjS7', 'KeyCorridorS6R3', 'OneRoomS20', 'MoveTwoAcrossS8N9', 'SynthS5R2',
  'SynthLoc', 'SynthSeq', 'MiniBossLevel', 'BossLevel', 'BossLevelNoUnlock',
];

const POSITION = new Map(AGENTGYM_LEVELS.map((name, i) => [name, i]));

/** The level and seed AgentGym's server plays for `dataIdx`. */
export function agentGymLevelOf(dataIdx: number): { readonly level: string; readonly seed: number } {
  return { level: AGENTGYM_LEVELS[dataIdx % 40] as string, seed: Math.floor(dataIdx / 40) };
}

export const babyaiAgentGymIndex: AgentGymTaskIndex = {
  size: 40 * (MAX_SEED + 1),
  taskIdAt(dataIdx) {
    if (!Number.isSafeInteger(dataIdx) || dataIdx < 0 || dataIdx >= this.size) return undefined;
    const { level, seed } = agentGymLevelOf(dataIdx);
    // All 40 are implemented (tests/servers/agentgym-http-babyai.test.ts); this guards the table.
    if (!LEVEL_BY_NAME.has(level)) throw new EnvError('TASK_UNKNOWN', `data_idx ${dataIdx} is BabyAI-${level}-v0, which actorgym does not implement`);
    // The grid AgentGym's server builds for this item (tests/envs/babyai/layout-parity.test.ts).
    return `${level}/${seed}/minigrid`;
  },
  dataIdxOf(taskId) {
    let seed: number;
    let name: string;
    try {
      const parsed = parseTaskId(taskId);
      [seed, name] = [parsed.seed, parsed.level.name];
    } catch {
      return undefined;
    }
    const position = POSITION.get(name);
    return position === undefined ? undefined : seed * 40 + position;
  },
};
