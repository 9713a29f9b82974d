/**
 * The prompt templates on real observations of our envs: each family renders its first and later
 * turns around the env's observation verbatim, and `readTurn` gives back exactly that observation
 * and the action list the turn shows (what the policy server hands the transformer). Issue 23.
 */
import { describe, expect, it } from 'vitest';
import type { StepInfo } from '../../../envs/contract.ts';
import { getEnv } from '../../../envs/index.ts';
import { MULTIPLE_ACTIONS_MESSAGE, NO_ACTION_MESSAGE } from '../../../envs/prompt/parse-reply.ts';
import { NO_TAG_MESSAGE } from '../../../envs/prompt/parse-tags.ts';
import { promptFor } from '../../../envs/prompt/prompt-for.ts';
import { ACTION_LIST_HEADER } from '../../../envs/prompt/render-turns.ts';

interface Seen {
  readonly observation: string;
  readonly availableActions: readonly string[] | undefined;
}

/** Reset observations and a few step observations (oracle moves and one invalid action) of a few tasks. */
async function observationsOf(id: string, tasks = 3, steps = 3): Promise<{ resets: Seen[]; steps: Seen[] }> {
  const def = getEnv(id);
  const seen = { resets: [] as Seen[], steps: [] as Seen[] };
  const shown = (o: string, info: StepInfo): Seen => ({ observation: o, availableActions: info.availableActions });
  for (const taskId of def.tasks('test').slice(0, tasks)) {
    const env = def.make();
    const reset = await env.reset({ taskId, seed: 0 });
    seen.resets.push(shown(reset.observation, reset.info));
    const invalid = await env.step('');
    seen.steps.push(shown(invalid.observation, invalid.info));
    const oracle = def.oracle?.(env);
    for (let i = 0; i < steps && oracle; i++) {
      const step = await env.step(await oracle.next());
      seen.steps.push(shown(step.observation, step.info));
      if (step.terminated || step.truncated) break;
    }
    await env.close();
  }
  return seen;
}

const withList = (s: Seen) => (s.availableActions === undefined ? {} : { availableActions: s.availableActions });

describe.each([
  { id: 'babyai', family: 'babyai', ownList: true, notes: [NO_ACTION_MESSAGE, MULTIPLE_ACTIONS_MESSAGE] },
  { id: 'textcraft', family: 'textcraft', ownList: false, notes: [NO_ACTION_MESSAGE, MULTIPLE_ACTIONS_MESSAGE] },
  { id: 'sciworld', family: 'sciworld', ownList: false, notes: [NO_ACTION_MESSAGE, MULTIPLE_ACTIONS_MESSAGE] },
  { id: 'search', family: 'search', ownList: false, notes: [NO_TAG_MESSAGE] },
])('$id prompt on real observations', ({ id, family, ownList, notes }) => {
  it('is chosen by env id', () => {
    expect(promptFor(id).family).toBe(family);
    expect(promptFor(id).system).toBeUndefined();
  });

  it('first turn: framing, then the reset observation verbatim at the end; readTurn gives it back', async () => {
    const { resets } = await observationsOf(id);
    for (const listActions of [false, true]) {
      const prompt = promptFor(id, { listActions });
      for (const s of resets) {
        const text = prompt.firstTurn(s.observation, s.availableActions);
        expect(text.length).toBeGreaterThan(s.observation.length + 200);
        const read = prompt.readTurn(text, true);
        expect(read?.observation).toBe(s.observation);
        if (ownList) {
          // BabyAI's own `Available actions: [...]` line is the list; nothing is appended.
          expect(text.endsWith(s.observation)).toBe(true);
          expect(read?.availableActions).toEqual(s.availableActions);
        } else if (listActions && s.availableActions !== undefined) {
          expect(text).toContain(`\n\n${ACTION_LIST_HEADER} [`);
          expect(read?.availableActions).toEqual(s.availableActions);
        } else {
          expect(text.endsWith(s.observation)).toBe(true);
          expect(read).toEqual({ observation: s.observation });
        }
      }
    }
  });

  it('later turns: the observation verbatim, after the format note when there is one; readTurn strips both', async () => {
    const { steps } = await observationsOf(id);
    expect(steps.length).toBeGreaterThan(3);
    for (const listActions of [false, true]) {
      const prompt = promptFor(id, { listActions });
      for (const s of steps) {
        for (const note of [undefined, ...notes]) {
          const text = prompt.nextTurn(s.observation, s.availableActions, note);
          if (note !== undefined) expect(text.startsWith(`${note}\n\n${s.observation}`)).toBe(true);
          else expect(text.startsWith(s.observation)).toBe(true);
          const read = prompt.readTurn(text, false);
          expect(read?.observation).toBe(s.observation);
          const shown = ownList || (listActions && s.availableActions !== undefined && s.availableActions.length > 0);
          expect(read?.availableActions).toEqual(shown ? s.availableActions : undefined);
        }
      }
    }
  });

  it('a later turn is read whatever listActions the rendering template had', async () => {
    const { steps } = await observationsOf(id, 1, 2);
    const reader = promptFor(id);
    for (const s of steps) {
      expect(reader.readTurn(promptFor(id, { listActions: true }).nextTurn(s.observation, s.availableActions), false)).toEqual({
        observation: s.observation,
        ...(ownList || (s.availableActions?.length ?? 0) > 0 ? withList(s) : {}),
      });
    }
  });

  it('readTurn refuses a first turn it did not frame', async () => {
    const { resets } = await observationsOf(id, 1, 0);
    const s = resets[0]!;
    const prompt = promptFor(id);
    expect(prompt.readTurn(s.observation, true)).toBeUndefined();
    const other = id === 'babyai' ? 'textcraft' : 'babyai';
    expect(prompt.readTurn(promptFor(other).firstTurn(s.observation), true)).toBeUndefined();
  });
});

describe('the prompt texts', () => {
  it('Thought/Action families state the grammar of their env and the reply contract with an example', () => {
    const first = (id: string) => promptFor(id).firstTurn('OBSERVATION');
    for (const id of ['babyai', 'textcraft', 'sciworld', 'unknown-env']) {
      expect(first(id)).toMatch(/Thought: <your reasoning[^\n]*>\nAction: <exactly one action>/);
      // The example reply parses to an action under the same template.
      const example = /Example reply:\n(Thought: [^\n]*\nAction: [^\n]*)/.exec(first(id))?.[1];
      expect(example && promptFor(id).parseReply(example).ok).toBe(true);
    }
    expect(first('babyai')).toMatch(/toggle and go through/);
    expect(first('babyai')).toMatch(/pickup <colour> <object> <n>/);
    expect(first('textcraft')).toMatch(/craft <amount> <item> using <amount> <ingredient>/);
    expect(first('textcraft')).toMatch(/get <amount> <item>/);
    expect(first('sciworld')).toMatch(/focus on OBJ/);
    expect(first('sciworld')).toMatch(/number/);
  });

  it('Deep Search asks for <think>, then one <search> or <answer>, and its example parses', () => {
    const text = promptFor('search').firstTurn('OBSERVATION');
    for (const tag of ['<think>', '<search>', '<answer>', '<information>']) expect(text).toContain(tag);
    expect(text).not.toMatch(/Action:/);
    const example = /Example reply:\n(<think>[^\n]*<\/think>\n<search>[^\n]*<\/search>)/.exec(text)?.[1];
    expect(example && promptFor('search').parseReply(example)).toEqual({ ok: true, action: '<search> river that flows through Vienna </search>' });
  });

  it('an unknown env id gets the generic template: no env grammar, same reply rules', () => {
    const prompt = promptFor('webshop');
    expect(prompt.family).toBe('generic');
    const text = prompt.firstTurn('You are on a shopping site.');
    expect(text).not.toMatch(/BabyAI|craft|<search>|focus on/);
    expect(text.endsWith('You are on a shopping site.')).toBe(true);
    expect(prompt.parseReply('Thought: buy\nAction: click [buy now]')).toEqual({ ok: true, action: 'click [buy now]' });
    expect(promptFor('searchqa').family).toBe('search');
  });

  it('the appended list is only added when the observation has none, and an env line that looks alike stays in the observation', () => {
    const prompt = promptFor('unknown-env', { listActions: true });
    const own = 'You see a door.\nAvailable actions: ["open door", "wait"]';
    expect(prompt.nextTurn(own, ['open door', 'wait'])).toBe(own);
    expect(prompt.readTurn(own, false)).toEqual({ observation: own, availableActions: ['open door', 'wait'] });
    const quoted = ['say "hi"', 'go\\back'];
    const text = prompt.nextTurn('Room.\n', quoted);
    expect(text).toBe(`Room.\n\n\n${ACTION_LIST_HEADER} ["say \\"hi\\"", "go\\\\back"]`);
    expect(prompt.readTurn(text, false)).toEqual({ observation: 'Room.\n', availableActions: quoted });
    // No list is shown for an empty one, and a header line inside the observation is kept as text.
    expect(prompt.nextTurn('Done.', [])).toBe('Done.');
    const lookalike = `${ACTION_LIST_HEADER} [not, json\nmore text`;
    expect(prompt.readTurn(lookalike, false)).toEqual({ observation: lookalike });
  });
});
