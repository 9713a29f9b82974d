/** Issue 37: the learner protocol's control frames — every op decodes, bad frames become typed errors naming the field. */
import { describe, expect, it } from 'vitest';
import type { LearnerFrame } from '../../../transport/learner-wire/learner-schemas.ts';
import { decodeLearnerFrame, decodeWorkerFrame, encodeFrame, encodeLearnerError } from '../../../transport/learner-wire/learner-codec.ts';

const text = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

describe('worker frames (learner side)', () => {
  it('decodes hello, group, done and failed', () => {
    for (const frame of [
      { op: 'hello', protocol: 1, worker: 'w1', env: 'babyai' },
      { op: 'group', id: 'a1', group: { anything: true } },
      { op: 'done', id: 'a1' },
      { op: 'failed', id: 'a1', reason: 'env servers gone' },
    ]) {
      expect(decodeWorkerFrame(text(frame), false)).toEqual({ ok: true, value: frame });
    }
  });

  it('answers binary frames, bad JSON, unknown ops and missing fields with a code and the field', () => {
    expect(decodeWorkerFrame(Buffer.from([1, 2]), true)).toMatchObject({ ok: false, error: { code: 'BAD_FRAME' } });
    expect(decodeWorkerFrame(text('{nope'), false)).toMatchObject({ ok: false, error: { code: 'BAD_JSON' } });
    expect(decodeWorkerFrame(text({ op: 'train' }), false)).toMatchObject({ ok: false, error: { code: 'UNKNOWN_OP', message: expect.stringMatching(/unknown op "train"; known ops: hello, group, done, failed/) } });
    expect(decodeWorkerFrame(text({ op: 'hello', protocol: 1, env: 'babyai' }), false)).toMatchObject({ ok: false, error: { code: 'BAD_FRAME', message: expect.stringMatching(/^invalid frame: worker: /) } });
    expect(decodeWorkerFrame(text({ op: 'done', id: '' }), false)).toMatchObject({ ok: false, error: { code: 'BAD_FRAME', message: expect.stringMatching(/^invalid frame: id: /) } });
  });
});

describe('learner frames (worker side)', () => {
  it('round-trips welcome, assign, version, cancel, drain and error', () => {
    const run = { env: 'babyai', seed: 3, tasksPerStep: 4, groupSize: 2, concurrency: 8, temperature: 1, config: { algo: 'grpo' } };
    for (const frame of [
      { op: 'welcome', protocol: 1, worker: 'w1', run, version: 3 },
      { op: 'assign', id: 'a1', step: 2, horizon: 6, groups: [0, 2] },
      { op: 'version', version: 4 },
      { op: 'cancel', id: 'a1' },
      { op: 'drain', reason: 'learner stopping' },
    ] satisfies LearnerFrame[]) {
      expect(decodeLearnerFrame(text(encodeFrame(frame)))).toEqual({ ok: true, value: frame });
    }
    expect(decodeLearnerFrame(text(encodeLearnerError('BAD_GROUP', 'group: step: expected int', 'a1')))).toEqual({
      ok: true, value: { op: 'error', code: 'BAD_GROUP', message: 'group: step: expected int', id: 'a1' },
    });
  });

  it('refuses an assignment with no groups, and a welcome without its run', () => {
    expect(decodeLearnerFrame(text({ op: 'assign', id: 'a', step: 1, horizon: 5, groups: [] }))).toMatchObject({ ok: false, error: { code: 'BAD_FRAME', message: expect.stringMatching(/groups/) } });
    expect(decodeLearnerFrame(text({ op: 'welcome', protocol: 1, worker: 'w', version: 0 }))).toMatchObject({ ok: false, error: { code: 'BAD_FRAME', message: expect.stringMatching(/run/) } });
  });
});
