/**
 * Replays a logged episode turn by turn for the trajectory viewer. Observations, actions and
 * rewards come from the log; the picture of each turn comes from re-running the episode in a
 * fresh env (same task id, and seed when logged) and taking `snapshot()` after reset and after
 * every logged action. BabyAI is deterministic given the task id, so the replay is exact; each
 * replayed observation is compared with the logged one, and at the first difference the
 * pictures stop (`replay: 'mismatch'`) rather than show a grid the agent never saw.
 */
import type { Env, JsonValue } from '../../envs/contract.ts';
import { getEnv } from '../../envs/index.ts';
import type { LoggedEpisode } from './run-dir.ts';
import { errorMessage } from '../../envs/error-message.ts';

export interface ReplayFrame {
  /** 0 is the state after reset; turn k follows the k-th action. */
  readonly turn: number;
  readonly action: string | undefined;
  readonly observation: string;
  readonly reward: number;
  readonly totalReward: number;
  readonly invalidAction: boolean;
  /** The env's snapshot (BabyAI: rows, agent, mission…) plus `colors` per cell when known. */
  readonly picture: JsonValue | undefined;
  /** URL of the page picture recorded at this turn (web env, `eval --screenshots`). */
  readonly screenshot?: string;
}

export interface ReplayedEpisode {
  readonly env: string;
  readonly taskId: string;
  readonly episodeId: string | undefined;
  readonly outcome: string | undefined;
  readonly reward: number | undefined;
  readonly maxTurns: number | undefined;
  readonly abortReason: string | undefined;
  readonly frames: readonly ReplayFrame[];
  /**
   * `ok`: every turn has a picture; `mismatch`: pictures stop where the env disagreed with the log;
   * `unavailable`: no pictures; `screenshots`: no replay, the pictures are the ones recorded.
   */
  readonly replay: 'ok' | 'mismatch' | 'unavailable' | 'screenshots';
  readonly replayNote: string | undefined;
}

type Snapshotting = Env & { snapshot(): JsonValue };

export async function replayEpisode(envId: string | undefined, logged: LoggedEpisode): Promise<ReplayedEpisode> {
  const pictures: (JsonValue | undefined)[] = [];
  let replay: ReplayedEpisode['replay'] = 'unavailable';
  let note: string | undefined;
  let env: Env | undefined;
  try {
    if (envId === undefined) throw new Error('the run does not say which env it used');
    env = getEnv(envId).make();
    if (!hasSnapshot(env)) throw new Error(`env "${envId}" has no snapshot() to draw`);
    const reset = await env.reset({ taskId: logged.taskId, ...(logged.seed !== undefined ? { seed: logged.seed } : {}) });
    const first = logged.firstObservation;
    if (first !== undefined && first !== '' && reset.observation !== first) throw new Mismatch(0);
    pictures.push(picture(env));
    replay = 'ok';
    for (const [i, step] of logged.steps.entries()) {
      const result = await env.step(step.action);
      if (result.observation !== step.observation) throw new Mismatch(i + 1);
      pictures.push(picture(env));
    }
  } catch (error) {
    if (error instanceof Mismatch) {
      replay = 'mismatch';
      note = `the replayed env differs from the log at turn ${error.turn}; pictures stop there`;
    } else {
      note = `no pictures: ${errorMessage(error)}`;
    }
  } finally {
    await env?.close().catch(() => {});
  }
  return loggedEpisode(envId, logged, pictures, replay, note);
}

/**
 * The episode as logged, without replaying it: for the web env, whose pages are not replayed
 * (a replay would redo the episode's orders and posts in a browser) but may have been recorded.
 * `screenshotUrl` is given for the turns with a recorded picture.
 */
export function recordedEpisode(
  envId: string | undefined,
  logged: LoggedEpisode,
  screenshotTurns: readonly number[],
  screenshotUrl: (turn: number) => string,
): ReplayedEpisode {
  const replayed = loggedEpisode(envId, logged, [], screenshotTurns.length > 0 ? 'screenshots' : 'unavailable', screenshotTurns.length > 0 ? undefined : NO_SCREENSHOTS);
  const turns = new Set(screenshotTurns);
  return { ...replayed, frames: replayed.frames.map((frame) => (turns.has(frame.turn) ? { ...frame, screenshot: screenshotUrl(frame.turn) } : frame)) };
}

const NO_SCREENSHOTS = 'no page pictures were recorded for this episode (`actorgym eval --env web --screenshots` keeps one per turn); the observation is the page\'s accessibility tree';

function loggedEpisode(
  envId: string | undefined,
  logged: LoggedEpisode,
  pictures: readonly (JsonValue | undefined)[],
  replay: ReplayedEpisode['replay'],
  note: string | undefined,
): ReplayedEpisode {
  let total = 0;
  const frames: ReplayFrame[] = [
    { turn: 0, action: undefined, observation: logged.firstObservation ?? '', reward: 0, totalReward: 0, invalidAction: false, picture: pictures[0] },
    ...logged.steps.map((step, i) => {
      total += step.reward;
      return {
        turn: i + 1,
        action: step.action,
        observation: step.observation,
        reward: step.reward,
        totalReward: total,
        invalidAction: step.invalidAction === true,
        picture: pictures[i + 1],
      };
    }),
  ];
  return {
    env: envId ?? 'unknown',
    taskId: logged.taskId,
    episodeId: logged.episodeId,
    outcome: logged.outcome,
    reward: logged.reward,
    maxTurns: logged.maxTurns,
    abortReason: logged.abortReason,
    frames,
    replay,
    replayNote: note,
  };
}

class Mismatch {
  constructor(readonly turn: number) {}
}

function hasSnapshot(env: Env): env is Snapshotting {
  return typeof (env as Partial<Snapshotting>).snapshot === 'function';
}

function picture(env: Snapshotting): JsonValue {
  const snapshot = env.snapshot();
  const colors = cellColors(env);
  return colors && typeof snapshot === 'object' && snapshot !== null && !Array.isArray(snapshot) ? { ...snapshot, colors } : snapshot;
}

/**
 * Full colour names per cell, for BabyAI: its snapshot writes minigrid's one-letter colours,
 * where `G` is both green and grey. Read through the env's public `internalGame()`, duck-typed
 * so that any other env (or a changed BabyAI) just draws without them.
 */
function cellColors(env: Env): (string | null)[][] | undefined {
  try {
    const world = (env as { internalGame?: () => { world?: unknown } }).internalGame?.().world as
      | { width: number; height: number; get(x: number, y: number): number; obj(id: number): { color?: unknown } }
      | undefined;
    if (!world || typeof world.get !== 'function' || typeof world.obj !== 'function') return undefined;
    const rows: (string | null)[][] = [];
    for (let y = 0; y < world.height; y++) {
      const row: (string | null)[] = [];
      for (let x = 0; x < world.width; x++) {
        const code = world.get(x, y);
        const color = code >= 0 ? world.obj(code).color : null;
        row.push(typeof color === 'string' ? color : null);
      }
      rows.push(row);
    }
    return rows;
  } catch {
    return undefined;
  }
}
