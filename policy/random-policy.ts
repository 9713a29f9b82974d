/**
 * Uniform over the env's available actions, seeded per episode and turn (rng.ts), so a run's
 * decisions do not depend on how requests were batched. When the env lists no actions, it picks
 * from `fallbackActions`, or else strings together 1–`maxFallbackWords` words of
 * `fallbackWords` (free-form text that the env may reject — that is the point of a baseline).
 * When the observation shows tag-action templates (`<search>...</search>`, `<answer> and
 * </answer>`, as Deep Search's prompt and messages do), that text is wrapped in one of the
 * shown tags, so a tag-grammar env sees random well-formed actions too. When the observation
 * is a WebArena page (an accessibility tree with `[id]`s and an `OBJECTIVE:` line), it is a
 * random action of that grammar on a shown id (click, type, hover, scroll, go_back, stop).
 */
import type { ActRequest, Decision, Policy, TokenTrajectory } from './policy.ts';
import { turnRng, type Rng } from './rng.ts';

export interface RandomPolicyOptions {
  /** Used when a request lists no available actions. */
  readonly fallbackActions?: readonly string[];
  /** Words for free-form text when there are no fallback actions either. */
  readonly fallbackWords?: readonly string[];
  /** Longest free-form text, in words (default 3). */
  readonly maxFallbackWords?: number;
}

const DEFAULT_WORDS = ['look', 'go', 'take', 'open', 'use', 'search', 'inventory', 'north', 'south', 'east', 'west', 'help'];

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng.next() * items.length)]!;

/** Tags shown as empty templates: `<t>...</t>`, `<t>…</t>` or `<t> and </t>`, in order of first sight. */
function templateTags(observation: string): string[] {
  const found = observation.matchAll(/<([a-z_]+)>\s*(?:\.\.\.|…|and)?\s*<\/\1>/g);
  return [...new Set([...found].map((m) => m[1] as string))];
}

const WEB_KINDS = ['click', 'type', 'hover', 'scroll', 'go_back', 'stop'] as const;

/** The `[id]`s of a WebArena observation's tree; none for any other observation. */
function pageIds(observation: string): string[] {
  if (!/\nOBJECTIVE: /.test(observation)) return [];
  return [...observation.matchAll(/^\s*\[(\d+)\] /gm)].map((m) => m[1] as string);
}

export class RandomPolicy implements Policy {
  readonly name = 'random';
  readonly version = 0;

  constructor(private readonly options: RandomPolicyOptions = {}) {}

  act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    return Promise.resolve(batch.map((request) => ({ action: this.#choose(request) })));
  }

  #choose(request: ActRequest): string {
    const rng = turnRng(request.seed, request.turn);
    const available = request.availableActions ?? [];
    if (available.length > 0) return pick(rng, available);
    const fallback = this.options.fallbackActions ?? [];
    if (fallback.length > 0) return pick(rng, fallback);
    const ids = pageIds(request.observation);
    if (ids.length > 0) return this.#webAction(rng, ids);
    const words = this.options.fallbackWords ?? DEFAULT_WORDS;
    const count = 1 + Math.floor(rng.next() * (this.options.maxFallbackWords ?? 3));
    const text = Array.from({ length: count }, () => pick(rng, words)).join(' ');
    // Drawn after the words, so observations without templates get the same text as before.
    const tags = templateTags(request.observation);
    if (tags.length === 0) return text;
    const tag = pick(rng, tags);
    return `<${tag}> ${text} </${tag}>`;
  }

  #webAction(rng: Rng, ids: readonly string[]): string {
    const words = this.options.fallbackWords ?? DEFAULT_WORDS;
    const kind = pick(rng, WEB_KINDS);
    const id = pick(rng, ids);
    switch (kind) {
      case 'click':
      case 'hover':
        return `${kind} [${id}]`;
      case 'type':
        return `type [${id}] [${pick(rng, words)}] [${rng.next() < 0.5 ? 0 : 1}]`;
      case 'scroll':
        return `scroll [${rng.next() < 0.5 ? 'down' : 'up'}]`;
      case 'go_back':
        return 'go_back';
      case 'stop':
        return `stop [${pick(rng, words)}]`;
    }
  }

  /** Keeps no per-episode state. */
  release(_episodeId: string): TokenTrajectory | undefined {
    return undefined;
  }
}
