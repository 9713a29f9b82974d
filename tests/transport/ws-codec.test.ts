import { describe, expect, it } from 'vitest';
import { EnvError, type EnvErrorCode } from '../../envs/contract.ts';
import { decodeEnvRequest, decodeEnvResponse, encodeEnvRequest, encodeError, encodeResult } from '../../transport/wire/env-codec.ts';
import { decodeEventServerFrame, decodeSubscribe, encodeEvent, encodeSubscribe, END_FRAME } from '../../transport/wire/event-codec.ts';
import { toEnvError, toWireError, WIRE_ERROR_CODES, WireFault, type WireErrorCode } from '../../transport/wire/errors.ts';

const text = (value: string) => Buffer.from(value);

describe('env codec', () => {
  it('round-trips every request op', () => {
    const bodies = [
      { op: 'spec', env: 'babyai' },
      { op: 'tasks', env: 'babyai', split: 'test' },
      { op: 'create', env: 'babyai' },
      { op: 'reset', instance: 'i1', taskId: 't', seed: 3 },
      { op: 'reset', instance: 'i1', taskId: 't' },
      { op: 'step', instance: 'i1', action: 'go forward "quoted"' },
      { op: 'close', instance: 'i1' },
      { op: 'oracle', instance: 'i1' },
    ] as const;
    bodies.forEach((body, id) => {
      expect(decodeEnvRequest(text(encodeEnvRequest(id, body)), false)).toEqual({ ok: true, value: { id, ...body } });
    });
  });

  it('validates a reply against the shape of its op', () => {
    const step = { observation: 'o', reward: 1, terminated: true, truncated: false, info: { success: true, extra: [1] } };
    expect(decodeEnvResponse('step', JSON.parse(encodeResult(4, step)))).toEqual({
      ok: true,
      value: { op: 'result', id: 4, result: step },
    });
    expect(decodeEnvResponse('reset', JSON.parse(encodeResult(4, step)))).toMatchObject({ ok: true });
    expect(decodeEnvResponse('create', JSON.parse(encodeResult(4, step)))).toMatchObject({ ok: false, id: 4 });
    const error = { code: 'ENV_NOT_RESET', message: 'm' } as const;
    expect(decodeEnvResponse('step', JSON.parse(encodeError(4, error)))).toEqual({ ok: true, value: { op: 'error', id: 4, error } });
    expect(decodeEnvResponse('step', { op: 'error', id: 4, error: { code: 'NOPE', message: '' } })).toMatchObject({ ok: false });
  });
});

describe('error mapping', () => {
  it('maps every wire code to an EnvError code and back for env codes', () => {
    for (const code of WIRE_ERROR_CODES) {
      const error = toEnvError({ code, message: 'why' });
      expect(error).toBeInstanceOf(EnvError);
      expect(error.message).toContain('why');
    }
    const same: (EnvErrorCode & WireErrorCode)[] = ['ENV_UNKNOWN', 'TASK_UNKNOWN', 'ENV_NOT_RESET', 'ENV_CLOSED', 'ENV_TIMEOUT', 'ENV_INTERNAL'];
    for (const code of same) {
      expect(toWireError(new EnvError(code, 'm'))).toEqual({ code, message: 'm' });
      expect(toEnvError({ code, message: 'm' })).toMatchObject({ code, message: 'm' });
    }
    expect(toEnvError({ code: 'INSTANCE_UNKNOWN', message: 'gone' })).toMatchObject({ code: 'ENV_LOST', message: 'INSTANCE_UNKNOWN: gone' });
    expect(toEnvError({ code: 'RATE_LIMITED', message: 'slow' })).toMatchObject({ code: 'PROTOCOL_ERROR' });
    expect(toWireError(new EnvError('ENV_LOST', 'upstream'))).toEqual({ code: 'ENV_INTERNAL', message: 'upstream' });
    expect(toWireError(new TypeError('x is undefined'))).toEqual({ code: 'ENV_INTERNAL', message: 'x is undefined' });
    expect(toWireError('thrown string')).toEqual({ code: 'ENV_INTERNAL', message: 'thrown string' });
    expect(toWireError(new WireFault('NO_ORACLE', 'none'))).toEqual({ code: 'NO_ORACLE', message: 'none' });
  });
});

describe('event codec', () => {
  it('round-trips subscribe and event frames, and validates events', () => {
    expect(decodeSubscribe(text(encodeSubscribe()), false)).toEqual({ ok: true, value: { op: 'subscribe' } });
    expect(decodeSubscribe(text(encodeSubscribe(['run.finished'])), false)).toEqual({
      ok: true,
      value: { op: 'subscribe', types: ['run.finished'] },
    });
    const event = { type: 'agent.acted', t: 1, episodeId: 'e', turn: 0, action: 'a' } as const;
    expect(decodeEventServerFrame(text(encodeEvent(event)), false)).toEqual({ ok: true, value: { op: 'event', event } });
    expect(decodeEventServerFrame(text(END_FRAME), false)).toEqual({ ok: true, value: { op: 'end' } });
    const broken = JSON.stringify({ op: 'event', event: { ...event, turn: 'zero' } });
    expect(decodeEventServerFrame(text(broken), false)).toMatchObject({ ok: false, error: { code: 'BAD_FRAME' } });
  });
});
