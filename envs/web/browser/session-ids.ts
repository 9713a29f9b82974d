/**
 * Ids an agent sees, numbered per session in order of first appearance. Chromium's own AX node
 * ids (what WebArena shows) depend on the browser context, so the same page had other ids in
 * another env instance and a seeded run did not replay. Here a node keeps its number for the
 * whole session (across scrolls and re-reads), and a node never seen before gets the next one.
 */
import type { AxElement, AxTreeText } from './ax-tree.ts';

export class SessionIds {
  private readonly byKey = new Map<string, string>();

  /** The tree with every `[id]` replaced by its session id, and the element map keyed the same way. */
  renumber(tree: AxTreeText): AxTreeText {
    const local = new Map<string, string>();
    const elements = new Map<string, AxElement>();
    for (const [raw, element] of tree.elements) {
      // The DOM node identifies an element across reads; AX ids only within one read.
      const key = element.backendNodeId !== undefined ? `b${element.backendNodeId}` : `a${raw}`;
      let id = this.byKey.get(key);
      if (id === undefined) {
        id = String(this.byKey.size + 1);
        this.byKey.set(key, id);
      }
      local.set(raw, id);
      elements.set(id, element);
    }
    const text = tree.text.replace(/^(\t*)\[([^\]\s]+)\]/gm, (whole, tabs: string, raw: string) => {
      const id = local.get(raw);
      return id === undefined ? whole : `${tabs}[${id}]`;
    });
    return { ...tree, text, elements };
  }
}
