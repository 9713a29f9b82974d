// Issue 37: a training run's buffer on the dashboard — the last buffer.changed is in the run's
// info (the page's run legend draws it), and a remote event server's buffer.changed is checked
// against its schema like the other training events.
import { describe, expect, it } from 'vitest';
import { DashboardRun } from '../../dashboard/server/dashboard-run.ts';
import { decodeRemoteFrame } from '../../dashboard/server/remote-frames.ts';

const changed = { type: 'buffer.changed', t: 1, fill: 2, capacity: 4, ready: 2, trained: 6, droppedStale: 1, droppedDuplicate: 0, stalenessHistogram: { '0': 4, '1': 2 }, learnerVersion: 3, takenThrough: 3 };

describe('buffer panel', () => {
  it('keeps the last buffer.changed of a run in its info, and says the info changed', () => {
    const run = new DashboardRun('r', 'r', 'live', () => 0);
    run.takeInfoChanged();
    expect(run.info().buffer).toBeUndefined();
    run.apply(changed);
    expect(run.takeInfoChanged()).toBe(true);
    expect(run.info().buffer).toEqual({ fill: 2, capacity: 4, ready: 2, trained: 6, droppedStale: 1, droppedDuplicate: 0, stalenessHistogram: { '0': 4, '1': 2 } });
  });

  it('checks a remote buffer.changed against its schema', () => {
    const ok = decodeRemoteFrame(Buffer.from(JSON.stringify({ op: 'event', event: changed })), false);
    expect(ok.kind).toBe('event');
    const bad = decodeRemoteFrame(Buffer.from(JSON.stringify({ op: 'event', event: { ...changed, fill: -1 } })), false);
    expect(bad).toMatchObject({ kind: 'bad', message: expect.stringContaining('invalid buffer.changed event') });
  });
});
