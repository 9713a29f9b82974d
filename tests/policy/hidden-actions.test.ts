import { describe, expect, it } from 'vitest';
import { resolveConfig, resumeConfig, savedHiddenActions } from '../../learner/training-config.ts';
import { FilteredPolicy, recordOf } from '../../policy/observation-filter.ts';
import type { ActRequest } from '../../policy/policy.ts';
import { recordingInner } from './stub-inner.ts';

const CHECK = 'check available actions';

/** A stand-in model that takes the first action it is offered. */
const firstActionInner = () => recordingInner((r) => r.availableActions?.[0] ?? 'noop');

const request = (availableActions: string[] | undefined, turn = 0): ActRequest => ({
  episodeId: 'e1', turn, seed: 1, observation: 'Your goal: go to the red ball', ...(availableActions ? { availableActions } : {}),
});

describe('hidden actions', () => {
  it('the model never sees a hidden action among its choices, and the record keeps the list it decoded from', async () => {
    const { seen, inner } = firstActionInner();
    const policy = new FilteredPolicy(inner, 'no-action-list', { record: true, hide: [CHECK] });
    const [decision] = await policy.act([request([CHECK, 'turn left', 'turn right'])]);
    expect(decision?.action).toBe('turn left');
    expect(seen[0]?.availableActions).toEqual(['turn left', 'turn right']);
    expect(recordOf(policy.release('e1'))?.availableActions).toEqual([['turn left', 'turn right']]);
  });

  it('keeps a list the hidden actions would empty, and requests without a list, as they are', async () => {
    const { seen, inner } = firstActionInner();
    const policy = new FilteredPolicy(inner, 'full', { hide: [CHECK] });
    const [only] = await policy.act([request([CHECK])]);
    expect(only?.action).toBe(CHECK);
    await policy.act([request(undefined, 1)]);
    expect(seen[1]?.availableActions).toBeUndefined();
  });

  it('is validated in a config, defaults to none, and a malformed saved value is a corrupt checkpoint', () => {
    expect(resolveConfig('babyai', { steps: 1 }).hiddenActions).toEqual([]);
    expect(resolveConfig('babyai', { steps: 1, hiddenActions: [CHECK] }).hiddenActions).toEqual([CHECK]);
    expect(() => resolveConfig('babyai', { steps: 1, hiddenActions: [''] })).toThrow('hiddenActions must be a list of non-empty action strings');
    expect(() => resolveConfig('babyai', { steps: 1, hiddenActions: CHECK as unknown as string[] })).toThrow('hiddenActions must be a list');
    expect(savedHiddenActions({}, 'state.json')).toEqual([]);
    expect(() => savedHiddenActions({ hiddenActions: 'check' as unknown as string[] }, 'state.json')).toThrow(/state\.json: hiddenActions must be a list/);
    const saved = { ...resolveConfig('babyai', { steps: 2 }), hiddenActions: 7 as unknown as string[] };
    expect(() => resumeConfig(saved, 'babyai', { steps: 4 })).toThrow(/hiddenActions must be a list/);
  });
});
