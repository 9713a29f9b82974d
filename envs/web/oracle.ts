/**
 * The web oracle: follows the task's plan (tasks/task.ts, steps named by visible page text)
 * through the same action grammar an agent uses. Each step becomes one action on an `[id]` of the
 * last observation, found by role and accessible name; when the element is not on screen it
 * scrolls down (then back up) until it is. So a solved task proves the plan works in a real
 * browser with only what the observation shows.
 */
import type { Oracle } from '../contract.ts';
import type { AxElement } from './browser/ax-tree.ts';
import type { WebEnv } from './env.ts';
import type { WebPlanStep } from './tasks/task.ts';

/** Roles that each kind of plan step acts on, as Chromium names them. */
const ROLES = {
  clickLink: ['link'],
  clickButton: ['button'],
  fill: ['textbox', 'searchbox', 'spinbutton'],
  select: ['combobox', 'listbox'],
  check: ['radio', 'checkbox'],
} as const;

/** Scrolls tried each way before the oracle gives up on a step. */
const MAX_SCROLLS = 15;

const escape = (text: string) => text.replace(/\]/g, ' ');

export class WebOracle implements Oracle {
  private episode = -1;
  private index = 0;
  private scrolled = 0;

  constructor(private readonly env: WebEnv) {}

  async next(): Promise<string> {
    const state = this.env.internalState();
    if (state.episode !== this.episode) {
      this.episode = state.episode;
      this.index = 0;
      this.scrolled = 0;
    }
    const step = state.task.plan[this.index];
    if (!step) return 'stop []';
    if ('goto' in step) return this.advance(`goto [${step.site ? state.siteUrls[step.site] : state.siteUrl}${step.goto}]`);
    if ('stop' in step) return this.advance(`stop [${step.stop}]`);
    const [kind, name] = target(step);
    const id = find(state.elements, ROLES[kind], name);
    if (id === undefined) return this.scroll(name);
    if (kind === 'fill') return this.advance(`type [${id}] [${escape((step as { fill: { value: string } }).fill.value)}] [0]`);
    if (kind === 'select') return this.advance(`type [${id}] [${escape((step as { select: { option: string } }).select.option)}] [0]`);
    return this.advance(`click [${id}]`);
  }

  private advance(action: string): string {
    this.index += 1;
    this.scrolled = 0;
    return action;
  }

  private scroll(name: string): string {
    this.scrolled += 1;
    if (this.scrolled <= MAX_SCROLLS) return 'scroll [down]';
    if (this.scrolled <= 2 * MAX_SCROLLS) return 'scroll [up]';
    // The plan names something the page does not have: say so in the answer rather than loop.
    this.index = Number.POSITIVE_INFINITY;
    return `stop [oracle: '${escape(name)}' is not on the page]`;
  }
}

function target(step: Exclude<WebPlanStep, { goto: string } | { stop: string }>): [keyof typeof ROLES, string] {
  if ('clickLink' in step) return ['clickLink', step.clickLink];
  if ('clickButton' in step) return ['clickButton', step.clickButton];
  if ('fill' in step) return ['fill', step.fill.label];
  if ('select' in step) return ['select', step.select.label];
  return ['check', step.check];
}

function find(elements: ReadonlyMap<string, AxElement>, roles: readonly string[], name: string): string | undefined {
  for (const [id, element] of elements) {
    if (roles.includes(element.role) && element.name === name) return id;
  }
  return undefined;
}
