import { describe, expect, it } from 'vitest';
import type { AxElement, AxTreeText } from '../../../envs/web/browser/ax-tree.ts';
import { SessionIds } from '../../../envs/web/browser/session-ids.ts';

const el = (backendNodeId: number | undefined, name: string): AxElement => ({ backendNodeId, role: 'link', name });
const tree = (entries: [string, AxElement][]): AxTreeText => ({
  text: entries.map(([id, e], k) => `${'\t'.repeat(k ? 1 : 0)}[${id}] ${e.role} '${e.name}'`).join('\n'),
  elements: new Map(entries),
  truncated: false,
});

describe('SessionIds', () => {
  it('numbers nodes by first appearance, whatever ids Chromium gave them', () => {
    const a = new SessionIds().renumber(tree([['901', el(40, 'Home')], ['77', el(41, 'Cart')]]));
    const b = new SessionIds().renumber(tree([['5', el(1040, 'Home')], ['6', el(1041, 'Cart')]]));
    expect(a.text).toBe("[1] link 'Home'\n\t[2] link 'Cart'");
    expect(b.text).toBe(a.text);
    expect([...a.elements.keys()]).toEqual(['1', '2']);
    expect(a.elements.get('2')!.name).toBe('Cart');
  });

  it('keeps a node its id across reads and gives new nodes new ids', () => {
    const ids = new SessionIds();
    ids.renumber(tree([['10', el(40, 'Home')], ['11', el(41, 'Cart')]]));
    // Scrolled: Home is gone, Cart remains under another AX id, a new link appears.
    const next = ids.renumber(tree([['31', el(41, 'Cart')], ['32', el(42, 'Next')], ['33', el(undefined, 'text')]]));
    expect(next.text).toBe("[2] link 'Cart'\n\t[3] link 'Next'\n\t[4] link 'text'");
    expect(next.elements.has('1')).toBe(false);
  });
});
