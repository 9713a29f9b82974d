import { describe, expect, it } from 'vitest';
import { RandomPolicy } from '../../policy/random-policy.ts';
import type { ActRequest } from '../../policy/policy.ts';

const actions = ['a', 'b', 'c', 'd'];

describe('RandomPolicy', () => {
  it('picks available actions uniformly, reproducibly per seed and turn, whatever the batch', async () => {
    const p = new RandomPolicy();
    const req = (id: string, seed: number, turn: number): ActRequest => ({ episodeId: id, turn, observation: '', availableActions: actions, seed });
    const alone = await p.act([req('x', 7, 3)]);
    const batched = await p.act([req('y', 1, 0), req('x', 7, 3), req('z', 2, 5)]);
    expect(batched[1]!.action).toBe(alone[0]!.action);
    const counts = new Map<string, number>();
    for (let seed = 0; seed < 4000; seed++) {
      const [d] = await p.act([req('e', seed, 0)]);
      counts.set(d!.action, (counts.get(d!.action) ?? 0) + 1);
    }
    for (const a of actions) expect(Math.abs(counts.get(a)! / 4000 - 0.25)).toBeLessThan(0.03);
    expect(p.release('x')).toBeUndefined();
    expect(p.version).toBe(0);
  });

  it('falls back to free-form text when the env lists no actions', async () => {
    const withList = new RandomPolicy({ fallbackActions: ['look'] });
    expect((await withList.act([{ episodeId: 'e', turn: 0, observation: '', seed: 1 }]))[0]!.action).toBe('look');
    const words = new RandomPolicy({ fallbackWords: ['x', 'y'], maxFallbackWords: 2 });
    const [d] = await words.act([{ episodeId: 'e', turn: 0, observation: '', seed: 2 }]);
    expect(d!.action).toMatch(/^[xy]( [xy])?$/);
  });
});

describe('RandomPolicy on a WebArena page', () => {
  const page = "OBSERVATION:\nTab 0 (current): Shop\n\n[1] RootWebArea 'Shop'\n\t[12] link 'Cart'\n\t[15] button 'Search'\nURL: http://x/\nOBJECTIVE: buy a lamp\nPREVIOUS ACTION: None";

  it('acts in the web grammar on ids the page shows', async () => {
    const p = new RandomPolicy();
    const seen = new Set<string>();
    for (let seed = 0; seed < 300; seed++) {
      const [d] = await p.act([{ episodeId: 'e', turn: 0, observation: page, seed }]);
      const action = d!.action;
      expect(action).toMatch(/^(click \[(1|12|15)\]|hover \[(1|12|15)\]|type \[(1|12|15)\] \[[a-z]+\] \[[01]\]|scroll \[(down|up)\]|go_back|stop \[[a-z]+\])$/);
      seen.add(action.split(' ')[0]!);
    }
    expect([...seen].sort()).toEqual(['click', 'go_back', 'hover', 'scroll', 'stop', 'type']);
  });

  it('keeps free-form text for observations without a page', async () => {
    const p = new RandomPolicy({ fallbackWords: ['x'] });
    const [d] = await p.act([{ episodeId: 'e', turn: 0, observation: '[1] not a page', seed: 3 }]);
    expect(d!.action).toMatch(/^x( x)*$/);
  });
});
