/**
 * The dashboard's JSON API (docs/dashboard.md#http-api), read-only:
 *
 *   GET /api/runs                                   RunInfo[]
 *   GET /api/runs/:run/metrics                      chart rows
 *   GET /api/runs/:run/steps                        learner steps that have trajectories
 *   GET /api/runs/:run/steps/:step                  that step's episodes (summaries)
 *   GET /api/runs/:run/steps/:step/episodes/:i      one episode replayed turn by turn, with pictures
 *   GET /api/runs/:run/steps/:step/episodes/:i/screenshots/:turn   a recorded page picture (image/jpeg)
 *
 * Errors are `{ error: { code, message } }` with the DashboardError's HTTP status.
 */
import type { DashboardRun } from './dashboard-run.ts';
import { DashboardError } from './errors.ts';
import { recordedEpisode, replayEpisode, type ReplayedEpisode } from './replay.ts';
import { errorMessage } from '../../envs/error-message.ts';

export interface ApiResponse {
  readonly status: number;
  /** JSON, or the bytes of a picture (then `type` is its media type). */
  readonly body: unknown;
  readonly type?: string;
}

/** Envs whose episodes are shown as logged, with their recorded pictures, never replayed. */
const RECORDED_ONLY = new Set(['web']);

/** Replayed episodes kept; a replay costs one env episode, a viewer re-opens the same few. */
const REPLAY_CACHE = 32;

export class ApiRoutes {
  private readonly replays = new Map<string, Promise<ReplayedEpisode>>();

  constructor(private readonly runs: () => readonly DashboardRun[]) {}

  async handle(pathname: string): Promise<ApiResponse> {
    try {
      const body = await this.route(pathname.split('/').filter((part) => part !== '').slice(1));
      return Buffer.isBuffer(body) ? { status: 200, body, type: 'image/jpeg' } : { status: 200, body };
    } catch (error) {
      if (error instanceof DashboardError) return { status: error.status, body: { error: { code: error.code, message: error.message } } };
      return { status: 500, body: { error: { code: 'INTERNAL', message: errorMessage(error) } } };
    }
  }

  private async route(parts: readonly string[]): Promise<unknown> {
    const [root, runId, section, step, sub, index, picture, turn, ...rest] = parts.map(decodePart);
    if (root !== 'runs' || rest.length > 0) throw notFound();
    if (runId === undefined) return this.runs().map((run) => run.info());
    const run = this.runs().find((r) => r.id === runId);
    if (!run) throw new DashboardError('RUN_UNKNOWN', `no run "${runId}"; see /api/runs`);
    if (section === 'metrics' && step === undefined) return run.series.all();
    if (section !== 'steps') throw notFound();
    const dir = run.dir;
    if (!dir) throw new DashboardError('NO_TRAJECTORIES', `run "${run.label}" has no trajectory files (only runs with a run directory do)`);
    if (step === undefined) return dir.steps();
    const stepNumber = integer(step, 'STEP_UNKNOWN', 'step');
    if (sub === undefined) return dir.episodes(stepNumber);
    if (sub !== 'episodes' || index === undefined) throw notFound();
    const episodeIndex = integer(index, 'EPISODE_UNKNOWN', 'episode index');
    if (picture === undefined) return this.replay(run, stepNumber, episodeIndex);
    if (picture !== 'screenshots' || turn === undefined) throw notFound();
    const turnNumber = integer(turn, 'SCREENSHOT_UNKNOWN', 'turn');
    return dir.screenshot((await dir.episode(stepNumber, episodeIndex)).episodeId, turnNumber);
  }

  private replay(run: DashboardRun, step: number, index: number): Promise<ReplayedEpisode> {
    const key = `${run.id}/${step}/${index}`;
    let replayed = this.replays.get(key);
    if (!replayed) {
      const dir = run.dir!;
      replayed = dir.episode(step, index).then(async (logged) => {
        const env = run.env ?? ((await dir.config())?.env as string | undefined);
        const shots = await dir.screenshotTurns(logged.episodeId);
        if (shots.length === 0 && !RECORDED_ONLY.has(env ?? '')) return replayEpisode(env, logged);
        const base = `/api/runs/${encodeURIComponent(run.id)}/steps/${step}/episodes/${index}/screenshots/`;
        return recordedEpisode(env, logged, shots, (turn) => `${base}${turn}`);
      });
      this.replays.set(key, replayed);
      // Failures are not cached: the file may be complete on the next request.
      replayed.catch(() => this.replays.delete(key));
      if (this.replays.size > REPLAY_CACHE) this.replays.delete(this.replays.keys().next().value as string);
    }
    return replayed;
  }
}

function integer(text: string, code: 'STEP_UNKNOWN' | 'EPISODE_UNKNOWN' | 'SCREENSHOT_UNKNOWN', what: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new DashboardError(code, `${what} must be a non-negative integer, got "${text.slice(0, 32)}"`);
  return Number(text);
}

const notFound = () => new DashboardError('NOT_FOUND', 'no such API path; see docs/dashboard.md#http-api');

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw notFound();
  }
}
