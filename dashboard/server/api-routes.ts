/**
 * The dashboard's JSON API (docs/dashboard.md#http-api), read-only:
 *
 *   GET /api/runs                                   RunInfo[]
 *   GET /api/runs/:run/metrics                      chart rows
 *   GET /api/runs/:run/steps                        learner steps that have trajectories
 *   GET /api/runs/:run/steps/:step                  that step's episodes (summaries)
 *   GET /api/runs/:run/steps/:step/episodes/:i      one episode replayed turn by turn, with pictures
 *
 * Errors are `{ error: { code, message } }` with the DashboardError's HTTP status.
 */
import type { DashboardRun } from './dashboard-run.ts';
import { DashboardError } from './errors.ts';
import { replayEpisode, type ReplayedEpisode } from './replay.ts';

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

/** Replayed episodes kept; a replay costs one env episode, a viewer re-opens the same few. */
const REPLAY_CACHE = 32;

export class ApiRoutes {
  private readonly replays = new Map<string, Promise<ReplayedEpisode>>();

  constructor(private readonly runs: () => readonly DashboardRun[]) {}

  async handle(pathname: string): Promise<ApiResponse> {
    try {
      return { status: 200, body: await this.route(pathname.split('/').filter((part) => part !== '').slice(1)) };
    } catch (error) {
      if (error instanceof DashboardError) return { status: error.status, body: { error: { code: error.code, message: error.message } } };
      return { status: 500, body: { error: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } } };
    }
  }

  private async route(parts: readonly string[]): Promise<unknown> {
    const [root, runId, section, step, sub, index, ...rest] = parts.map(decodePart);
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
    return this.replay(run, stepNumber, episodeIndex);
  }

  private replay(run: DashboardRun, step: number, index: number): Promise<ReplayedEpisode> {
    const key = `${run.id}/${step}/${index}`;
    let replayed = this.replays.get(key);
    if (!replayed) {
      const dir = run.dir!;
      replayed = dir.episode(step, index).then(async (logged) => replayEpisode(run.env ?? (await dir.config())?.env as string | undefined, logged));
      this.replays.set(key, replayed);
      // Failures are not cached: the file may be complete on the next request.
      replayed.catch(() => this.replays.delete(key));
      if (this.replays.size > REPLAY_CACHE) this.replays.delete(this.replays.keys().next().value as string);
    }
    return replayed;
  }
}

function integer(text: string, code: 'STEP_UNKNOWN' | 'EPISODE_UNKNOWN', what: string): number {
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
