/** Issue 36 (item 7): what `serve-policy` serves — exactly one of --checkpoint and --policy (cli/commands/serve-policy-spec.ts). */
import { describe, expect, it } from 'vitest';
import { servedSpecOf } from '../../cli/commands/serve-policy-spec.ts';

describe('serve-policy --checkpoint / --policy / --adapter', () => {
  it('reads hf:DIR with its adapter, and checkpoint:DIR as --checkpoint DIR', () => {
    expect(servedSpecOf({ policy: 'hf:models/qwen', adapter: 'runs/a/peft' })).toEqual({ kind: 'hf', dir: 'models/qwen', adapter: 'runs/a/peft' });
    expect(servedSpecOf({ policy: 'hf:C:/models/qwen' })).toEqual({ kind: 'hf', dir: 'C:/models/qwen' });
    expect(servedSpecOf({ policy: 'checkpoint:runs/grpo' })).toEqual(servedSpecOf({ checkpoint: 'runs/grpo' }));
  });

  it('refuses neither, both, an unknown kind, an empty folder and an adapter on a checkpoint', () => {
    expect(() => servedSpecOf({})).toThrow(/give --checkpoint DIR .* or --policy hf:DIR/);
    expect(() => servedSpecOf({ checkpoint: 'a', policy: 'hf:b' })).toThrow(/not both/);
    expect(() => servedSpecOf({ policy: 'openai:gpt' })).toThrow(/--policy must be hf:DIR .* got "openai:gpt"/);
    expect(() => servedSpecOf({ policy: 'hf:' })).toThrow(/--policy must be/);
    expect(() => servedSpecOf({ checkpoint: 'runs/x', adapter: 'p' })).toThrow(/--adapter applies to --policy hf:DIR only/);
  });
});
