/** Issue 37: TrainingConfig.async resolved, saved and read back (absent = synchronous). */
import { describe, expect, it } from 'vitest';
import { asyncDefaults } from '../../learner/async-settings.ts';
import { parseSavedConfig, resolveConfig, resumeConfig } from '../../learner/training-config.ts';

describe('TrainingConfig.async', () => {
  it('is absent unless asked for, and takes the defaults for what is not given', () => {
    expect('async' in resolveConfig('babyai', { steps: 1 })).toBe(false);
    expect(resolveConfig('babyai', { steps: 1, async: {} }).async).toEqual(asyncDefaults);
    expect(resolveConfig('babyai', { steps: 1, async: { maxStaleness: 0 } }).async).toEqual({ maxStaleness: 0, importanceCap: 2 });
  });

  it('names a bad field', () => {
    expect(() => resolveConfig('babyai', { steps: 1, async: { maxStaleness: 1.5 } })).toThrow('async.maxStaleness must be an integer ≥ 0, got 1.5');
    expect(() => resolveConfig('babyai', { steps: 1, async: { maxStaleness: -1 } })).toThrow('async.maxStaleness must be an integer ≥ 0, got -1');
    expect(() => resolveConfig('babyai', { steps: 1, async: { importanceCap: 0.9 } })).toThrow('async.importanceCap must be a number ≥ 1, got 0.9');
  });

  it('round-trips through JSON; a config saved before the field reads back synchronous', () => {
    const config = resolveConfig('babyai', { steps: 1, async: { maxStaleness: 2 } });
    expect(parseSavedConfig(JSON.parse(JSON.stringify(config)), 'config.json')).toEqual(config);
    const { async: _, ...old } = config;
    expect('async' in parseSavedConfig(JSON.parse(JSON.stringify(old)), 'config.json')).toBe(false);
    expect(() => parseSavedConfig({ ...config, async: { maxStaleness: -1, importanceCap: 2 } }, 'state.json')).toThrow(/CKPT_CORRUPT: state.json: field 'async.maxStaleness'/);
  });

  it('a resumed run keeps the checkpoint\'s settings; given ones compare with defaults filled in', () => {
    const saved = resolveConfig('babyai', { steps: 2, async: {} });
    expect(resumeConfig(saved, 'babyai', { steps: 4 }).async).toEqual(asyncDefaults);
    expect(resumeConfig(saved, 'babyai', { steps: 4, async: { importanceCap: 2 } }).async).toEqual(asyncDefaults);
    expect(() => resumeConfig(saved, 'babyai', { steps: 4, async: { maxStaleness: 3 } })).toThrow(/CKPT_INCOMPATIBLE: .*async/);
    const sync = resolveConfig('babyai', { steps: 2 });
    expect(() => resumeConfig(sync, 'babyai', { steps: 4, async: {} })).toThrow(/async \{"maxStaleness":1,"importanceCap":2\} \(checkpoint: undefined\)/);
  });
});
