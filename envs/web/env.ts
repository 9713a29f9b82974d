/**
 * The web env: a task of the bundled shop or forum, played in a real browser. `reset` gives the
 * env instance a fresh copy of every site's seeded state and a new browser context on the task's
 * start page; `step` parses one WebArena action, runs it and shows the next page; `stop [answer]`
 * ends the episode and the task's evaluator scores it (answer, final URL or the instance's
 * database), reward 1 or 0 as WebArena. The env never truncates: the horizon is the episode
 * machine's, and an episode that never stops is not scored. A lost browser is `ENV_LOST`.
 *
 * The browser is sandboxed to this env's sites (browser/sandbox.ts): any other URL is blocked and
 * the step says so (`invalidAction`). The final observation says only whether the task is
 * complete; the evaluator's reason, which may name the expected answer, goes to `info.reason`
 * alone, so no page an agent can read ever shows it.
 *
 * The sites and the browser are loaded on the first reset, so listing envs stays cheap.
 */
import { EnvError, type Env, type EnvSpec, type ResetOptions, type ResetResult, type StepInfo, type StepResult } from '../contract.ts';
import type { AxElement } from './browser/ax-tree.ts';
import type { WebSession } from './browser/web-session.ts';
import type { SiteLease } from './shared-sites.ts';
import type { AnswerJudge } from './tasks/judge.ts';
import type { WebTask } from './tasks/task.ts';
import { webTask } from './tasks/web-tasks.ts';
import { objectiveText } from './tasks/objective-text.ts';
import type { SiteName } from './site-urls.ts';
import { errorMessage } from '../error-message.ts';

export interface WebEnvOptions {
  /** List only elements on screen, as WebArena's `current_viewport_only` (default true). */
  readonly viewportOnly?: boolean;
  /** Cut the tree text at this many characters (default 16000). */
  readonly maxTreeChars?: number;
  /** Longest wait for filling a field or choosing an option (default 5000 ms; raise it on a loaded machine). */
  readonly actionTimeoutMs?: number;
  /** Longest wait for a page load (default 15000 ms). */
  readonly navigationTimeoutMs?: number;
  /** Keep a JPEG of the page with every observation, base64 in `info.screenshot` (default false). */
  readonly screenshots?: boolean;
  /** Grades free-text answers (`fuzzy_match`) with an LLM, as WebArena does; off by default (tasks/judge.ts). */
  readonly judge?: AnswerJudge;
}

export interface WebEnvState {
  readonly task: WebTask;
  /** Counts resets, so an oracle kept across episodes knows when a new one began. */
  readonly episode: number;
  readonly steps: number;
  /** Base URL of the task's site. */
  readonly siteUrl: string;
  /** Base URL of every site (a multi-site task's plan goes to the other one). */
  readonly siteUrls: Readonly<Record<SiteName, string>>;
  /** URL of the current tab. */
  readonly url: string;
  /** The ids shown in the last observation. */
  readonly elements: ReadonlyMap<string, AxElement>;
}

const runtime = () => import('./env-runtime.ts');

/**
 * What the agent reads when the episode ends: the verdict alone, never the evaluator's reason
 * (it names the expected answer, which another sample of a group could copy), nor the agent's
 * answer (after a success it is the expected one).
 */
export function finalObservation(success: boolean): string {
  return `The episode has ended: ${success ? 'the task is complete' : 'the task is not complete'}.`;
}

export class WebEnv implements Env {
  private lease: SiteLease | undefined;
  private instanceId: string | undefined;
  private session: WebSession | undefined;
  private task: WebTask | undefined;
  private episode = 0;
  private steps = 0;
  private url = '';
  private over = false;
  private closed = false;

  constructor(
    readonly spec: EnvSpec,
    private readonly options: WebEnvOptions = {},
  ) {}

  async reset(options: ResetOptions): Promise<ResetResult> {
    this.assertOpen();
    const task = webTask(options.taskId); // TASK_UNKNOWN before any resource is touched
    const { leaseSites, openWebSession } = await runtime();
    await this.session?.close();
    this.session = undefined;
    this.lease ??= await leaseSites();
    const sites = this.lease.server;
    if (this.instanceId === undefined) this.instanceId = sites.createInstance();
    else if (sites.local.length > 0) sites.resetInstance(this.instanceId);
    this.task = task;
    this.episode += 1;
    this.steps = 0;
    this.over = false;
    const session = await openWebSession({
      instanceId: this.instanceId,
      startUrl: `${sites.urls[task.site]}${task.startPath}`,
      // The env's sites (a task may span both); the machine's other ports and hosts stay out.
      allowedOrigins: Object.values(sites.urls),
      ...(this.options.viewportOnly !== undefined ? { viewportOnly: this.options.viewportOnly } : {}),
      ...(this.options.maxTreeChars !== undefined ? { maxTreeChars: this.options.maxTreeChars } : {}),
      ...(this.options.actionTimeoutMs !== undefined ? { actionTimeoutMs: this.options.actionTimeoutMs } : {}),
      ...(this.options.navigationTimeoutMs !== undefined ? { navigationTimeoutMs: this.options.navigationTimeoutMs } : {}),
    });
    if (this.closed) {
      // close() ran during this reset (an env server dropping a timed-out call): it could not
      // see the browser context or lease opened since, so release them here (issue 27).
      await session.close();
      this.releaseSites();
      throw new EnvError('ENV_CLOSED', 'the env was closed during reset');
    }
    this.session = session;
    const { text, info } = await this.view();
    return { observation: text, info: { ...info, kind: task.kind } };
  }

  async step(action: string): Promise<StepResult> {
    const task = this.current();
    if (this.over) throw new EnvError('ENV_NOT_RESET', 'the episode is over; call reset() first');
    if (typeof action !== 'string') throw new EnvError('PROTOCOL_ERROR', `a web action must be a string, got ${typeof action}`);
    const { parseWebAction, evaluateWebTaskJudged } = await runtime();
    const session = this.session!;
    this.steps += 1;
    const parsed = parseWebAction(action);
    if (!parsed.ok) return this.turn(action, parsed.error, true);
    const result = await session.act(parsed.action);
    if (!result.stopped) return this.turn(action, result.message, !result.ok);
    this.over = true;
    const sites = this.lease!.server;
    const finalUrl = (await session.observe()).url;
    let verdict;
    try {
      const db = sites.local.includes(task.site) ? sites.database(this.instanceId!, task.site) : undefined;
      verdict = await evaluateWebTaskJudged(task, { answer: result.answer, finalUrl, db }, this.options.judge);
    } catch (error) {
      throw new EnvError('ENV_INTERNAL', `web task ${task.id} could not be evaluated: ${errorMessage(error, { withCode: false })}`);
    }
    const success = verdict.reward === 1;
    const observation = finalObservation(success);
    const info: StepInfo = { url: finalUrl, site: task.site, invalidAction: false, success, reason: verdict.reason, ...(verdict.judge !== undefined ? { judge: verdict.judge } : {}) };
    return { observation, reward: verdict.reward, terminated: true, truncated: false, info };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.session?.close();
    this.session = undefined;
    this.releaseSites();
  }

  private releaseSites(): void {
    if (this.instanceId !== undefined) this.lease?.server.dropInstance(this.instanceId);
    this.lease?.release();
    this.lease = undefined;
  }

  /**
   * This env's instance id on the shared site server (`server.database(id, site)` reads its
   * state); undefined before the first reset. For tests and tools in the same process.
   */
  get siteInstanceId(): string | undefined {
    return this.instanceId;
  }

  /** The running task and the browser's view, for the oracle (same process only). */
  internalState(): WebEnvState {
    const task = this.current();
    return {
      task,
      episode: this.episode,
      steps: this.steps,
      siteUrl: this.lease!.server.urls[task.site],
      siteUrls: this.lease!.server.urls,
      url: this.url,
      elements: this.session?.shownElements ?? new Map(),
    };
  }

  private async turn(action: string, message: string, invalid: boolean): Promise<StepResult> {
    const { text, info } = await this.view(action, message);
    return { observation: text, reward: 0, terminated: false, truncated: false, info: { ...info, invalidAction: invalid } };
  }

  private async view(previousAction?: string, message?: string): Promise<{ text: string; info: StepInfo }> {
    const { formatWebObservation } = await runtime();
    const session = this.session!;
    const observation = await session.observe();
    this.url = observation.url;
    const task = this.task!;
    const text = formatWebObservation(observation, objectiveText(task.objective, this.lease!.server.urls), previousAction, message || undefined);
    const screenshot = this.options.screenshots ? (await session.screenshot({ type: 'jpeg', quality: 60 })).toString('base64') : undefined;
    return { text, info: { url: observation.url, site: task.site, ...(screenshot !== undefined ? { screenshot } : {}) } };
  }

  private current(): WebTask {
    this.assertOpen();
    if (!this.task || !this.session) throw new EnvError('ENV_NOT_RESET', 'call reset() before step()');
    return this.task;
  }

  private assertOpen(): void {
    if (this.closed) throw new EnvError('ENV_CLOSED', 'the env is closed');
  }
}
