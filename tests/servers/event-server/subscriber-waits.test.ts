import { describe, expect, it } from 'vitest';
import { SubscriberWaits } from '../../../servers/event-server/subscriber-waits.ts';

describe('SubscriberWaits', () => {
  it('resolves at once when enough subscribers are there, else when the count reaches it', async () => {
    let count = 1;
    const waits = new SubscriberWaits(() => count);
    expect(await waits.wait(1)).toEqual({ ok: true, subscribers: 1 });
    const seen: number[] = [];
    const two = waits.wait(2, { onChange: (n) => seen.push(n) });
    count = 2;
    waits.changed();
    expect(await two).toEqual({ ok: true, subscribers: 2 });
    expect(seen).toEqual([2]);
  });

  it('ends with TIMEOUT after timeoutMs and with CLOSED when the server closes', async () => {
    const waits = new SubscriberWaits(() => 0);
    expect(await waits.wait(1, { timeoutMs: 1 })).toEqual({ ok: false, code: 'TIMEOUT', subscribers: 0 });
    const pending = waits.wait(3);
    waits.close();
    expect(await pending).toEqual({ ok: false, code: 'CLOSED', subscribers: 0 });
  });
});
