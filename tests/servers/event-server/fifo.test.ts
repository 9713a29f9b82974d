import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../servers/event-server/fifo.ts';

describe('Fifo', () => {
  it('is first in, first out across compactions', () => {
    const fifo = new Fifo<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      fifo.push(i);
      if (i % 3 !== 0) out.push(fifo.shift() as number);
    }
    expect(fifo.size).toBe(5000 - out.length);
    expect(fifo.peek()).toBe(out.length);
    while (fifo.size > 0) out.push(fifo.shift() as number);
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(fifo.shift()).toBeUndefined();
  });

  it('copies what it holds and clears', () => {
    const fifo = new Fifo<string>();
    for (const s of ['a', 'b', 'c']) fifo.push(s);
    fifo.shift();
    expect(fifo.toArray()).toEqual(['b', 'c']);
    fifo.clear();
    expect(fifo.size).toBe(0);
  });
});
