/** The policy server's bounded parts: the session store and the decode batcher. */
import { describe, expect, it } from 'vitest';
import { DecodeBatcher } from '../../servers/policy-server/decode-batcher.ts';
import { conversationKey, SessionStore } from '../../servers/policy-server/sessions.ts';
import type { Decision } from '../../policy/policy.ts';
import type { TransformerActRequest } from '../../policy/transformer-policy.ts';

describe('SessionStore', () => {
  const store = (maxSessions: number, idleMs = 1000) => {
    const released: string[] = [];
    return { released, sessions: new SessionStore({ maxSessions, idleMs, release: (id) => released.push(id) }) };
  };

  it('evicts the least recently kept session beyond maxSessions, releasing its episode', () => {
    const { sessions, released } = store(2);
    sessions.keep('a', 'e1', 0);
    sessions.keep('b', 'e2', 1);
    expect(sessions.claim('a')).toBe('e1');
    sessions.keep('a2', 'e1', 2); // e1 continued: now the newest
    sessions.keep('c', 'e3', 3);
    expect(released).toEqual(['e2']);
    expect(sessions.size).toBe(2);
    expect(sessions.claim('b')).toBeUndefined();
  });

  it('a claimed session leaves the store until it is kept again', () => {
    const { sessions } = store(4);
    sessions.keep('a', 'e1', 0);
    expect(sessions.claim('a')).toBe('e1');
    expect(sessions.claim('a')).toBeUndefined();
  });

  it('drops sessions idle longer than idleMs', () => {
    const { sessions, released } = store(10, 100);
    sessions.keep('a', 'e1', 0);
    sessions.keep('b', 'e2', 50);
    sessions.reap(120);
    expect(released).toEqual(['e1']);
    expect(sessions.claim('b')).toBe('e2');
  });

  it('the same conversation kept twice keeps the newer episode and releases the older', () => {
    const { sessions, released } = store(10);
    sessions.keep('a', 'e1', 0);
    sessions.keep('a', 'e2', 1);
    expect(released).toEqual(['e1']);
    expect(sessions.claim('a')).toBe('e2');
  });

  it('maxSessions 0 keeps nothing; clear releases everything', () => {
    const none = store(0);
    none.sessions.keep('a', 'e1', 0);
    expect(none.released).toEqual(['e1']);
    const some = store(5);
    some.sessions.keep('a', 'e1', 0);
    some.sessions.keep('b', 'e2', 0);
    some.sessions.clear();
    expect(some.released).toEqual(['e1', 'e2']);
  });

  it('keys tell roles and message boundaries apart', () => {
    const key = conversationKey([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }]);
    expect(conversationKey([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }])).toBe(key);
    expect(conversationKey([{ role: 'user', content: 'ab' }])).not.toBe(key);
    expect(conversationKey([{ role: 'system', content: 'a' }, { role: 'assistant', content: 'b' }])).not.toBe(key);
  });
});

describe('DecodeBatcher', () => {
  const request = (episodeId: string): TransformerActRequest => ({ episodeId, turn: 0, observation: 'o', seed: 0 });

  it('decodes what arrives together in one call, one call at a time, at most maxBatch rows each', async () => {
    const calls: string[][] = [];
    const batcher = new DecodeBatcher(async (batch) => {
      calls.push(batch.map((r) => r.episodeId));
      return batch.map((r): Decision => ({ action: `act ${r.episodeId}` }));
    }, { maxBatch: 3, maxQueue: 10 });
    const decided = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => batcher.submit(request(id))));
    expect(decided.map((d) => d.action)).toEqual(['act a', 'act b', 'act c', 'act d', 'act e']);
    expect(calls).toEqual([['a', 'b', 'c'], ['d', 'e']]);
  });

  it('refuses beyond maxQueue with 503 server_busy, and queued requests on close', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = new DecodeBatcher(async (batch) => {
      await gate;
      return batch.map(() => ({ action: 'x' }));
    }, { maxBatch: 1, maxQueue: 2 });
    const first = batcher.submit(request('a'));
    await new Promise((resolve) => setImmediate(resolve)); // 'a' is decoding; the queue is empty
    const queued = [batcher.submit(request('b')), batcher.submit(request('c'))];
    await expect(batcher.submit(request('d'))).rejects.toMatchObject({ status: 503, code: 'server_busy' });
    batcher.close();
    for (const q of queued) await expect(q).rejects.toMatchObject({ status: 503, code: 'server_closing' });
    release();
    expect((await first).action).toBe('x');
  });

  it('a failed batch fails each of its requests', async () => {
    const batcher = new DecodeBatcher(async () => {
      throw new Error('boom');
    }, { maxBatch: 4, maxQueue: 4 });
    const results = await Promise.allSettled([batcher.submit(request('a')), batcher.submit(request('b'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
