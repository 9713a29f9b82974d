/**
 * Keeps the page picture of every turn of an env instance's current episode (an env's
 * `info.screenshot`, a base64 JPEG: the web env made with `createWebDefinition({ screenshots:
 * true })` sends one with the reset and every step but the last), takes it out of `info`, and
 * writes it next to the evaluation's trajectories when the episode ends:
 *
 *   DIR/screenshots/<episodeId>/000.jpg   the page after reset (turn 0)
 *   DIR/screenshots/<episodeId>/003.jpg   the page after the 3rd action
 *
 * Files rather than the trajectory record: episodes.jsonl stays small enough to read whole (one
 * JPEG is 30–100 kB of base64, fifteen per web episode), a viewer fetches a picture only when it
 * shows that turn, and neither the episode machine's context nor the event stream ever carries
 * one. Memory is bounded by the horizon: one episode's pictures per env instance.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Env, EnvDefinition, ResetOptions, ResetResult, StepInfo, StepResult } from '../envs/contract.ts';

/** The folder under an evaluation (or run) directory that holds the pictures. */
export const SCREENSHOTS_DIR = 'screenshots';

/** The file of one turn's picture, relative to the episode's folder. */
export const screenshotFile = (turn: number): string => `${String(turn).padStart(3, '0')}.jpg`;

export class ScreenshotTapEnv implements Env {
  /** Turn → JPEG bytes of the current episode. */
  readonly pictures = new Map<number, Buffer>();
  private turn = 0;

  constructor(readonly inner: Env) {}

  get spec() {
    return this.inner.spec;
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    this.pictures.clear();
    this.turn = 0;
    const result = await this.inner.reset(options);
    return { ...result, info: this.take(result.info) };
  }

  async step(action: string): Promise<StepResult> {
    this.turn += 1;
    const result = await this.inner.step(action);
    return { ...result, info: this.take(result.info) };
  }

  close(): Promise<void> {
    this.pictures.clear();
    return this.inner.close();
  }

  private take(info: StepInfo): StepInfo {
    const { screenshot, ...rest } = info;
    if (typeof screenshot === 'string' && screenshot !== '') this.pictures.set(this.turn, Buffer.from(screenshot, 'base64'));
    return rest;
  }
}

/** The same definition, making tapped envs; its oracle reads the inner env, as it expects. */
export function tapScreenshots(definition: EnvDefinition): EnvDefinition {
  const { oracle } = definition;
  return {
    spec: definition.spec,
    tasks: (split) => definition.tasks(split),
    make: () => new ScreenshotTapEnv(definition.make()),
    ...(definition.categoryOf ? { categoryOf: (taskId: string) => definition.categoryOf!(taskId) } : {}),
    ...(oracle ? { oracle: (env: Env) => oracle.call(definition, env instanceof ScreenshotTapEnv ? env.inner : env) } : {}),
  };
}

/** The tapped env inside `env` (itself, or the inner env of a wrapper with `inner`), if any. */
export function screenshotTapOf(env: Env | undefined): ScreenshotTapEnv | undefined {
  for (let e: unknown = env; e !== undefined && e !== null; e = (e as { inner?: unknown }).inner) {
    if (e instanceof ScreenshotTapEnv) return e;
  }
  return undefined;
}

/**
 * Writes the pictures of the episode that just ended on `env` to `root/screenshots/<episodeId>/`,
 * replacing what a previous session wrote under the same id. Returns how many were written.
 * Synchronous: the env goes back to its pool right after, and its next reset clears them.
 */
export function writeEpisodeScreenshots(env: Env | undefined, root: string, episodeId: string): number {
  const tap = screenshotTapOf(env);
  if (!tap || tap.pictures.size === 0) return 0;
  if (!/^[A-Za-z0-9._-]+$/.test(episodeId) || episodeId.startsWith('.')) throw new Error(`episode id ${JSON.stringify(episodeId)} cannot name a folder`);
  const folder = path.join(root, SCREENSHOTS_DIR, episodeId);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  for (const [turn, bytes] of tap.pictures) writeFileSync(path.join(folder, screenshotFile(turn)), bytes);
  return tap.pictures.size;
}
