/**
 * One WebArena env instance: a task from the loaded configs, played on the user's own sites in
 * the web env's browser (browser/web-session.ts) with WebArena's observation and action grammar.
 * `reset` opens a fresh browser context (logged in from the task's storage state when it requires
 * login) on the task's start pages; `stop [answer]` ends the episode and WebArena's evaluators
 * score it, reward 1 or 0. The final observation says only whether the task is complete; the
 * checks, with the expected values, go to `info.reason` for the trajectory.
 *
 * The user's sites keep one shared state: a state-changing task changes it for every later
 * episode, as in WebArena (docs/envs/webarena.md: reset the sites between runs).
 */
import { EnvError, type Env, type EnvSpec, type ResetOptions, type ResetResult, type StepInfo, type StepResult } from '../../contract.ts';
import { errorMessage } from '../../error-message.ts';
import type { BrowserHost } from '../browser/browser-host.ts';
import type { WebSession, WebSessionOptions } from '../browser/web-session.ts';
import { describeVerdict, evaluateWebArenaTask } from './evaluate.ts';
import type { WebArenaJudge } from './judge.ts';
import type { WebArenaPage } from './program-html.ts';
import type { WebArenaTask } from './task.ts';

export interface WebArenaEnvOptions {
  /** Scores fuzzy_match answers (and an unachievable task's stated reason); see judge.ts. */
  readonly judge?: WebArenaJudge;
  /** List only elements on screen, as WebArena's `current_viewport_only` (default true). */
  readonly viewportOnly?: boolean;
  /** Cut the tree text at this many characters (default 16000). */
  readonly maxTreeChars?: number;
  /** Longest wait for filling a field or choosing an option (default 5000 ms). */
  readonly actionTimeoutMs?: number;
  /** Longest wait for a page load (default 15000 ms). */
  readonly navigationTimeoutMs?: number;
  /** The browser to use (default the process-wide one). */
  readonly host?: BrowserHost;
}

/**
 * What the session is opened with. `allowedOrigins` is the task's sites: the web env's URL
 * sandbox reads it (an option of WebSessionOptions once that lands; until then it is unused).
 */
type SandboxedSessionOptions = WebSessionOptions & { readonly allowedOrigins?: readonly string[] };

const runtime = () => import('../env-runtime.ts');
let instances = 0;

export class WebArenaEnv implements Env {
  private readonly instanceId = `webarena-${++instances}`;
  private session: WebSession | undefined;
  private task: WebArenaTask | undefined;
  private over = false;
  /** The URL of the last observation. */
  private shownUrl = '';
  private closed = false;

  constructor(
    readonly spec: EnvSpec,
    private readonly tasks: ReadonlyMap<string, WebArenaTask>,
    private readonly options: WebArenaEnvOptions = {},
  ) {}

  async reset(options: ResetOptions): Promise<ResetResult> {
    this.assertOpen();
    const task = this.tasks.get(options.taskId);
    if (!task) throw new EnvError('TASK_UNKNOWN', `webarena: no task "${options.taskId}" in ${this.spec.id} (task ids are WebArena's task_id)`);
    await this.session?.close();
    this.session = undefined;
    const { openWebSession } = await runtime();
    const session = await openWebSession(this.sessionOptions(task));
    if (this.closed) {
      await session.close();
      throw new EnvError('ENV_CLOSED', 'the env was closed during reset');
    }
    this.session = session;
    await this.openOtherStartTabs(session, task);
    this.task = task;
    this.over = false;
    const observation = await this.view();
    return { observation, info: { url: this.shownUrl, site: task.category } };
  }

  async step(action: string): Promise<StepResult> {
    this.assertOpen();
    const task = this.task;
    const session = this.session;
    if (!task || !session) throw new EnvError('ENV_NOT_RESET', 'call reset() before step()');
    if (this.over) throw new EnvError('ENV_NOT_RESET', 'the episode is over; call reset() first');
    if (typeof action !== 'string') throw new EnvError('PROTOCOL_ERROR', `a web action must be a string, got ${typeof action}`);
    const { parseWebAction } = await runtime();
    const parsed = parseWebAction(action);
    if (!parsed.ok) return this.turn(action, parsed.error, true);
    const result = await session.act(parsed.action);
    if (!result.stopped) return this.turn(action, result.message, !result.ok);
    this.over = true;
    return this.finish(task, session, result.answer ?? '');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.session?.close();
    this.session = undefined;
  }

  private sessionOptions(task: WebArenaTask): SandboxedSessionOptions {
    const o = this.options;
    return {
      instanceId: this.instanceId,
      startUrl: task.startUrls[0]!,
      allowedOrigins: task.allowedOrigins,
      ...(task.storageState !== undefined ? { storageState: task.storageState } : {}),
      ...(o.viewportOnly !== undefined ? { viewportOnly: o.viewportOnly } : {}),
      ...(o.maxTreeChars !== undefined ? { maxTreeChars: o.maxTreeChars } : {}),
      ...(o.actionTimeoutMs !== undefined ? { actionTimeoutMs: o.actionTimeoutMs } : {}),
      ...(o.navigationTimeoutMs !== undefined ? { navigationTimeoutMs: o.navigationTimeoutMs } : {}),
      ...(o.host !== undefined ? { host: o.host } : {}),
    };
  }

  /** WebArena opens each ` |AND| ` start URL in its own tab and starts on the first. */
  private async openOtherStartTabs(session: WebSession, task: WebArenaTask): Promise<void> {
    if (task.startUrls.length < 2) return;
    for (const url of task.startUrls.slice(1)) {
      await session.act({ kind: 'new_tab' });
      const opened = await session.act({ kind: 'goto', url });
      if (!opened.ok) throw new EnvError('ENV_INTERNAL', `webarena task ${task.id}: start page ${url} did not open: ${opened.message}`);
    }
    await session.act({ kind: 'tab_focus', index: 0 });
  }

  private async finish(task: WebArenaTask, session: WebSession, answer: string): Promise<StepResult> {
    const finalUrl = (await session.observe()).url;
    const page: WebArenaPage = {
      goto: async (url) => {
        const opened = await session.act({ kind: 'goto', url });
        if (!opened.ok) throw new Error(`program_html could not open ${url}: ${opened.message}`);
      },
      evaluate: (expression) => session.evaluate(expression),
    };
    let verdict;
    try {
      verdict = await evaluateWebArenaTask(task, { answer, finalUrl, page, judge: this.options.judge });
    } catch (error) {
      if (error instanceof EnvError) throw error;
      throw new EnvError('ENV_INTERNAL', `webarena task ${task.id} could not be evaluated: ${errorMessage(error, { withCode: false })}`);
    }
    const success = verdict.reward === 1;
    const observation = `The episode has ended: ${success ? 'the task is complete' : 'the task is not complete'}.`;
    const info: StepInfo = { url: finalUrl, site: task.category, invalidAction: false, success, reason: describeVerdict(verdict) };
    return { observation, reward: verdict.reward, terminated: true, truncated: false, info };
  }

  private async turn(action: string, message: string, invalid: boolean): Promise<StepResult> {
    const observation = await this.view(action, message);
    return { observation, reward: 0, terminated: false, truncated: false, info: { url: this.shownUrl, site: this.task!.category, invalidAction: invalid } };
  }

  private async view(previousAction?: string, message?: string): Promise<string> {
    const { formatWebObservation } = await runtime();
    const observation = await this.session!.observe();
    this.shownUrl = observation.url;
    return formatWebObservation(observation, this.task!.config.intent, previousAction, message || undefined);
  }

  private assertOpen(): void {
    if (this.closed) throw new EnvError('ENV_CLOSED', 'the env is closed');
  }
}
