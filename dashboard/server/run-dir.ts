/**
 * Reads a run directory (actors/training/run-dir.ts writes it): config.json, metrics.jsonl
 * (followed as it grows, so `--run DIR` of a run still going updates live), and the
 * trajectories of each step. An evaluation directory (eval/eval-files.ts) reads the same
 * way, its episodes.jsonl as the one group of trajectories (step 0). Either may hold each turn's
 * page picture (`eval --screenshots`, eval/screenshot-tap.ts). Every read is bounded and
 * every malformed line is skipped and counted, never thrown: a line cut short by a kill is
 * normal in a run directory.
 */
import { open, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { SCREENSHOTS_DIR, screenshotFile } from '../../eval/screenshot-tap.ts';
import { DashboardError } from './errors.ts';
import { numeric } from './metric-series.ts';
import type { MetricRow } from './wire.ts';

/** Largest file read whole (a step's trajectories); bigger ones are refused with FILE_TOO_LARGE. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Largest picture served; ours are 30–100 kB. */
const MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;
/** Step files whose parsed episodes are kept in memory. */
const CACHED_STEPS = 4;

export interface LoggedStep {
  readonly action: string;
  readonly observation: string;
  readonly reward: number;
  readonly invalidAction?: boolean | undefined;
}

export interface LoggedEpisode {
  readonly episodeId?: string | undefined;
  readonly taskId: string;
  readonly outcome?: string | undefined;
  readonly reward?: number | undefined;
  readonly turns?: number | undefined;
  readonly maxTurns?: number | undefined;
  readonly seed?: number | undefined;
  readonly firstObservation?: string | undefined;
  readonly abortReason?: string | undefined;
  readonly steps: readonly LoggedStep[];
}

export interface EpisodeSummary {
  readonly index: number;
  readonly episodeId: string | undefined;
  readonly taskId: string;
  readonly outcome: string | undefined;
  readonly reward: number | undefined;
  readonly turns: number;
  /** Set when the line could not be read; the episode cannot be opened. */
  readonly error?: string;
}

const LoggedEpisodeSchema: z.ZodType<LoggedEpisode> = z.object({
  episodeId: z.string().optional(),
  taskId: z.string(),
  outcome: z.string().optional(),
  reward: z.number().optional(),
  turns: z.number().optional(),
  maxTurns: z.number().optional(),
  seed: z.number().optional(),
  firstObservation: z.string().optional(),
  abortReason: z.string().optional(),
  steps: z.array(z.object({ action: z.string(), observation: z.string(), reward: z.number(), invalidAction: z.boolean().optional() })),
});

type ParsedLine = { ok: true; episode: LoggedEpisode } | { ok: false; error: string };

const STEP_FILE = /^step-(\d+)\.jsonl$/;
const SCREENSHOT_FILE = /^(\d{3,9})\.jpg$/;
/** Episode ids as the rollout system makes them (`eval-0-s3a0`); anything else names no folder. */
const SAFE_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
/** The one trajectory group of an evaluation directory. */
export const EVALUATION_STEP = 0;

export class RunDirReader {
  private metricsOffset = 0;
  private partial = '';
  private readonly cache = new Map<number, { mtimeMs: number; lines: ParsedLine[] }>();
  /** metrics.jsonl lines skipped because they were not JSON objects. */
  badMetricLines = 0;

  private constructor(
    readonly root: string,
    /** `evaluation`: an `actorgym eval` directory, its episodes.jsonl shown as step 0. */
    readonly kind: 'training' | 'evaluation',
  ) {}

  /** Checks that `dir` looks like a run directory. */
  static async open(dir: string): Promise<RunDirReader> {
    const root = path.resolve(dir);
    const info = await stat(root).catch(() => undefined);
    if (!info?.isDirectory()) throw new DashboardError('RUN_DIR_MISSING', `no run directory at ${root}`);
    const entries = new Set(await readdir(root));
    if (!['config.json', 'metrics.jsonl', 'trajectories', 'episodes.jsonl'].some((name) => entries.has(name))) {
      throw new DashboardError('RUN_DIR_INVALID', `${root} is not a run directory: it has no config.json, metrics.jsonl, trajectories/ or episodes.jsonl (make one with \`actorgym train --out DIR\` or \`actorgym eval --out DIR\`)`);
    }
    const evaluation = entries.has('episodes.jsonl') && !entries.has('trajectories') && !entries.has('metrics.jsonl');
    return new RunDirReader(root, evaluation ? 'evaluation' : 'training');
  }

  /** config.json, or undefined when missing or unreadable. */
  async config(): Promise<Record<string, unknown> | undefined> {
    try {
      const value = JSON.parse(await readFile(path.join(this.root, 'config.json'), 'utf8')) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * metrics.jsonl lines written since the previous call (complete lines only). `restarted`: the
   * file was cut back (a resumed run rewrites it up to its checkpoint), so `rows` are the whole
   * file again and replace what was read before.
   */
  async newMetrics(): Promise<{ rows: MetricRow[]; restarted: boolean }> {
    const file = path.join(this.root, 'metrics.jsonl');
    const size = (await stat(file).catch(() => undefined))?.size ?? 0;
    const restarted = size < this.metricsOffset;
    if (restarted) {
      this.metricsOffset = 0;
      this.partial = '';
    }
    if (size === this.metricsOffset) return { rows: [], restarted };
    const handle = await open(file, 'r');
    let text: string;
    try {
      const length = Math.min(size - this.metricsOffset, MAX_FILE_BYTES);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, this.metricsOffset);
      this.metricsOffset += bytesRead;
      text = this.partial + buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    const rows: MetricRow[] = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const value = JSON.parse(line) as unknown;
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) rows.push(numeric(value as Record<string, unknown>));
        else this.badMetricLines++;
      } catch {
        this.badMetricLines++;
      }
    }
    return { rows, restarted };
  }

  /** Learner steps with a trajectory file, ascending. */
  async steps(): Promise<number[]> {
    if (this.kind === 'evaluation') return [EVALUATION_STEP];
    const names = await readdir(path.join(this.root, 'trajectories')).catch(() => [] as string[]);
    return names.flatMap((name) => {
      const match = STEP_FILE.exec(name);
      return match ? [Number(match[1])] : [];
    }).sort((a, b) => a - b);
  }

  async episodes(step: number): Promise<EpisodeSummary[]> {
    return (await this.stepLines(step)).map((line, index) =>
      line.ok
        ? {
            index,
            episodeId: line.episode.episodeId,
            taskId: line.episode.taskId,
            outcome: line.episode.outcome,
            reward: line.episode.reward,
            turns: line.episode.steps.length,
          }
        : { index, episodeId: undefined, taskId: '', outcome: undefined, reward: undefined, turns: 0, error: line.error },
    );
  }

  async episode(step: number, index: number): Promise<LoggedEpisode> {
    const line = (await this.stepLines(step))[index];
    if (!line) throw new DashboardError('EPISODE_UNKNOWN', `step ${step} has no episode ${index}`);
    if (!line.ok) throw new DashboardError('TRAJECTORY_INVALID', `episode ${index} of step ${step}: ${line.error}`);
    return line.episode;
  }

  private async stepLines(step: number): Promise<ParsedLine[]> {
    const file = this.kind === 'evaluation'
      ? step === EVALUATION_STEP ? path.join(this.root, 'episodes.jsonl') : ''
      : path.join(this.root, 'trajectories', `step-${String(step).padStart(6, '0')}.jsonl`);
    const info = file === '' ? undefined : await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw new DashboardError('STEP_UNKNOWN', `no trajectories for step ${step} in ${this.root}`);
    return this.readLines(step, file, info);
  }

  /** Turns of the episode that have a picture (`DIR/screenshots/<episodeId>/<turn>.jpg`), ascending. */
  async screenshotTurns(episodeId: string | undefined): Promise<number[]> {
    if (episodeId === undefined || !SAFE_ID.test(episodeId)) return [];
    const names = await readdir(path.join(this.root, SCREENSHOTS_DIR, episodeId)).catch(() => [] as string[]);
    return names.flatMap((name) => {
      const match = SCREENSHOT_FILE.exec(name);
      return match ? [Number(match[1])] : [];
    }).sort((a, b) => a - b);
  }

  /** One turn's picture (JPEG bytes). */
  async screenshot(episodeId: string | undefined, turn: number): Promise<Buffer> {
    if (episodeId === undefined || !SAFE_ID.test(episodeId)) throw new DashboardError('SCREENSHOT_UNKNOWN', 'the episode has no id to find its pictures by');
    const file = path.join(this.root, SCREENSHOTS_DIR, episodeId, screenshotFile(turn));
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw new DashboardError('SCREENSHOT_UNKNOWN', `episode ${episodeId} has no picture of turn ${turn}`);
    if (info.size > MAX_SCREENSHOT_BYTES) throw new DashboardError('FILE_TOO_LARGE', `${file} is ${info.size} bytes, over the ${MAX_SCREENSHOT_BYTES}-byte limit`);
    return readFile(file);
  }

  private async readLines(step: number, file: string, info: { size: number; mtimeMs: number }): Promise<ParsedLine[]> {
    if (info.size > MAX_FILE_BYTES) throw new DashboardError('FILE_TOO_LARGE', `${file} is ${info.size} bytes, over the ${MAX_FILE_BYTES}-byte limit`);
    const cached = this.cache.get(step);
    if (cached && cached.mtimeMs === info.mtimeMs) return cached.lines;
    const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '').map(parseLine);
    this.cache.delete(step);
    this.cache.set(step, { mtimeMs: info.mtimeMs, lines });
    if (this.cache.size > CACHED_STEPS) this.cache.delete(this.cache.keys().next().value as number);
    return lines;
  }
}

function parseLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
  // An evaluation's record (eval/eval-record.ts) names its turns `trajectory`.
  if (typeof value === 'object' && value !== null && !('steps' in value) && 'trajectory' in value) value = { ...value, steps: value.trajectory };
  const parsed = LoggedEpisodeSchema.safeParse(value);
  if (parsed.success) return { ok: true, episode: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, error: `not a trajectory: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'schema mismatch'}` };
}
