/**
 * How big a web turn's prompt is: the oracle plays test tasks, and every turn's request is built
 * as the LLM policy builds it (envs/web/prompt.ts; past turns condensed) and, for comparison, with the
 * whole history sent verbatim. Replies are the oracle's actions in WebArena's contract after a
 * fixed thought of THOUGHT.length characters (a model's reasoning is about that long in WebArena's
 * examples). Prints median, p95 and max of characters and tokens: the chars/4 estimate that
 * `--max-context-tokens` uses, and a real BPE count when `--tokenizer-module` names a module that
 * exports `encode(text): number[]` (e.g. gpt-tokenizer's `esm/encoding/o200k_base.js`).
 *
 *   npx tsx experiments/web-llm/prompt-size.ts [--tasks N] [--concurrency C] [--tokenizer-module PATH]
 */
import { getEnv } from '../../envs/index.ts';
import type { ChatMessage } from '../../policy/llm/chat-types.ts';
import { condensePast, estimateTokens } from '../../policy/llm/history.ts';
import { promptFor } from '../../envs/prompt/prompt-for.ts';

const THOUGHT =
  "Let's think step by step. The objective asks about a product of the shop. This page shows the navigation, a search box and a list of links; " +
  'the element I need is listed in the tree with its id, so I act on it and check the next page for what the objective asks.';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

const def = getEnv('web');
const tasks = def.tasks('test').slice(0, Number(arg('--tasks') ?? Infinity));
const concurrency = Number(arg('--concurrency') ?? 4);
const tokenizerPath = arg('--tokenizer-module');
const encode: ((text: string) => number[]) | undefined = tokenizerPath ? ((await import(tokenizerPath)) as { encode: (t: string) => number[] }).encode : undefined;
const prompt = promptFor('web');

/** One oracle episode: its observations (reset first) and the actions taken. */
async function play(taskId: string): Promise<{ observations: string[]; actions: string[] }> {
  const env = def.make();
  try {
    const observations = [(await env.reset({ taskId, seed: 0 })).observation];
    const actions: string[] = [];
    const oracle = def.oracle!(env);
    for (let turn = 0; turn < def.spec.defaultHorizon; turn++) {
      const action = await oracle.next();
      actions.push(action);
      const step = await env.step(action);
      if (step.terminated || step.truncated) break;
      observations.push(step.observation);
    }
    return { observations, actions };
  } finally {
    await env.close();
  }
}

const episodes: { observations: string[]; actions: string[] }[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < tasks.length) episodes.push(await play(tasks[next++]!));
  }),
);

interface Size { chars: number; estimate: number; tokens?: number }
const size = (messages: readonly ChatMessage[]): Size => {
  const text = messages.map((m) => m.content);
  return {
    chars: text.reduce((n, t) => n + t.length, 0),
    estimate: text.reduce((n, t) => n + estimateTokens(t), 0),
    ...(encode ? { tokens: text.reduce((n, t) => n + encode(t).length, 0) } : {}),
  };
};

const first: Size[] = [];
const condensed: Size[] = [];
const whole: Size[] = [];
const pages: number[] = [];
for (const { observations, actions } of episodes) {
  const messages: ChatMessage[] = [];
  observations.forEach((observation, turn) => {
    pages.push(observation.length);
    if (turn > 0) messages.push({ role: 'assistant', content: prompt.formatReply(THOUGHT, actions[turn - 1]!) });
    messages.push({ role: 'user', content: turn === 0 ? prompt.firstTurn(observation) : prompt.nextTurn(observation) });
    const sent = condensePast(messages, prompt.condensePast!);
    if (turn === 0) first.push(size(sent));
    condensed.push(size(sent));
    whole.push(size(messages));
  });
}

const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? 0;
};
const row = (label: string, sizes: readonly Size[]) => {
  const cols = (key: keyof Size) => {
    const xs = sizes.map((s) => s[key]).filter((x): x is number => x !== undefined);
    return xs.length === 0 ? '—' : `${quantile(xs, 0.5)} / ${quantile(xs, 0.95)} / ${Math.max(...xs)}`;
  };
  return `| ${label} | ${sizes.length} | ${cols('chars')} | ${cols('estimate')} | ${cols('tokens')} |`;
};

console.log(`${episodes.length} oracle episodes of the web test split, ${condensed.length} turns; intro ${prompt.firstTurn('').length} chars; one page p50 ${quantile(pages, 0.5)}, p95 ${quantile(pages, 0.95)}, max ${Math.max(...pages)} chars`);
console.log(`| prompt | turns | chars p50 / p95 / max | chars/4 p50 / p95 / max | ${tokenizerPath ? 'BPE tokens' : 'tokens (no --tokenizer-module)'} p50 / p95 / max |`);
console.log('|---|---|---|---|---|');
console.log(row('first turn (intro + reset page)', first));
console.log(row('every turn, past condensed (sent)', condensed));
console.log(row('every turn, whole history', whole));
