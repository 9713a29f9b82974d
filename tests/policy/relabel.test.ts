import { describe, expect, it } from 'vitest';
import { checkSymmetryGroups } from '../../envs/symmetries.ts';
import { babyaiSpec } from '../../envs/babyai/index.ts';
import { Relabeling } from '../../policy/relabel.ts';
import { FilteredPolicy, recordOf } from '../../policy/observation-filter.ts';
import type { ActRequest } from '../../policy/policy.ts';
import { recordingInner } from './stub-inner.ts';

const COLOURS = ['red', 'green', 'blue', 'purple', 'yellow', 'grey'];
const TEXT = 'Your goal: go to the red ball\nThere is a grey key 1 and a red box 2; reddish greyhound.';

describe('Relabeling', () => {
  it('permutes each group bijectively, whole words only, and maps back exactly', () => {
    const images = new Set<string>();
    for (let seed = 0; seed < 50; seed++) {
      const r = new Relabeling([COLOURS], seed);
      const forward = COLOURS.map((c) => r.forward(c));
      expect([...forward].sort()).toEqual([...COLOURS].sort());
      expect(COLOURS.map((c) => r.backward(r.forward(c)))).toEqual(COLOURS);
      expect(r.backward(r.forward(TEXT))).toBe(TEXT);
      expect(r.forward(TEXT)).toContain('reddish greyhound');
      expect(r.forward('go to the ball 1')).toBe('go to the ball 1');
      images.add(forward.join(' '));
    }
    // 50 draws from 720 permutations: nearly all distinct, and not stuck on the identity.
    expect(images.size).toBeGreaterThan(40);
  });

  it('draws the same permutation from the same seed', () => {
    expect(new Relabeling([COLOURS], 7).forward(TEXT)).toBe(new Relabeling([COLOURS], 7).forward(TEXT));
  });

  it('rejects groups that are not disjoint groups of single words', () => {
    expect(() => checkSymmetryGroups([['red', 'green'], ['green', 'blue']])).toThrow('symmetry word "green" appears twice');
    expect(() => checkSymmetryGroups([['red']])).toThrow('needs two words or more');
    expect(() => checkSymmetryGroups([['red ball', 'blue']])).toThrow('must be one word');
    expect(() => new Relabeling([['a', 'a']], 0)).toThrow('appears twice');
  });

  it('BabyAI declares its six colours', () => {
    expect([...(babyaiSpec.symmetries?.[0] ?? [])].sort()).toEqual([...COLOURS].sort());
  });
});

/** A stand-in model that picks the first action naming a colour and remembers what it read. */
const colourInner = () => recordingInner((r) => (r.availableActions ?? []).find((a) => / \w+ ball 1$/.test(a)) ?? 'turn left');

describe('FilteredPolicy with relabel', () => {
  const request = (turn: number, episodeId = 'e1', seed = 3): ActRequest => ({
    episodeId,
    turn,
    seed,
    observation: 'Your goal: go to the red ball\nThere is a red ball 1.\nAvailable actions: ["go to red ball 1", "turn left"]',
    availableActions: ['go to red ball 1', 'turn left'],
  });

  it('the model reads and writes relabeled text; the env gets its own words back; the record keeps what the model saw', async () => {
    const { seen, inner } = colourInner();
    const policy = new FilteredPolicy(inner, 'no-action-list', { record: true, relabel: [COLOURS] });
    const expected = new Relabeling([COLOURS], 3).forward('red');
    const [first] = await policy.act([request(0)]);
    const [second] = await policy.act([request(1)]);
    expect(first?.action).toBe('go to red ball 1');
    expect(second?.action).toBe('go to red ball 1');
    // The same permutation at every turn of the episode, and the action list filtered out of the text.
    for (const r of seen) {
      expect(r.observation).toBe(`Your goal: go to the ${expected} ball\nThere is a ${expected} ball 1.`);
      expect(r.availableActions).toEqual([`go to ${expected} ball 1`, 'turn left']);
    }
    expect(recordOf(policy.release('e1'))?.availableActions).toEqual([
      [`go to ${expected} ball 1`, 'turn left'],
      [`go to ${expected} ball 1`, 'turn left'],
    ]);
  });

  it('episodes with other seeds read other permutations', async () => {
    const { seen, inner } = colourInner();
    const policy = new FilteredPolicy(inner, 'full', { relabel: [COLOURS] });
    await policy.act(Array.from({ length: 30 }, (_, i) => request(0, `e${i}`, i)));
    const goals = new Set(seen.map((r) => r.observation.split('\n')[0]));
    expect(goals.size).toBe(6);
  });

  it('without relabel the model reads the env text', async () => {
    const { seen, inner } = colourInner();
    const policy = new FilteredPolicy(inner, 'full');
    await policy.act([request(0)]);
    expect(seen[0]).toEqual(request(0));
  });
});
