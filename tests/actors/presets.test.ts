import { describe, expect, it } from 'vitest';
import { babyaiStart, getPreset, withPreset } from '../../actors/training/presets.ts';
import { resolveConfig } from '../../learner/training-config.ts';

describe('training presets', () => {
  it('merges a model override into the preset model instead of replacing it', () => {
    const merged = withPreset(babyaiStart, { model: { tiedEmbeddings: true }, lr: 3e-4 });
    expect(merged.model).toEqual({ ...babyaiStart.model, tiedEmbeddings: true });
    expect(merged.lr).toBe(3e-4);
    expect(merged.schedule).toBe(babyaiStart.schedule);
    // A size given on the command line wins over the preset's.
    expect(withPreset(babyaiStart, { model: { dModel: 32 } }).model?.dModel).toBe(32);
  });

  it('leaves options alone without a preset, and the preset alone without options', () => {
    expect(withPreset(undefined, { lr: 0.1 })).toEqual({ lr: 0.1 });
    expect(withPreset(babyaiStart, {})).toEqual(babyaiStart);
  });

  it('resolves to a valid configuration and names the presets on a typo', () => {
    expect(resolveConfig('babyai', babyaiStart).model).toEqual(babyaiStart.model);
    expect(() => getPreset('babyai-strat')).toThrow(/unknown preset "babyai-strat"; expected one of babyai-start/);
  });
});
