/**
 * Reads one page's accessibility tree over CDP and formats it (ax-tree.ts). With
 * `viewportOnly`, layout boxes come from one `DOMSnapshot.captureSnapshot` so that only what is
 * on screen is listed, as WebArena's `current_viewport_only`.
 */
import type { CDPSession } from 'playwright-core';
import { formatAxTree, type AxTreeText, type RawAxNode, type Rect } from './ax-tree.ts';

interface LayoutSnapshot {
  readonly documents: readonly {
    readonly nodes: { readonly backendNodeId?: readonly number[] };
    readonly layout: { readonly nodeIndex: readonly number[]; readonly bounds: readonly (readonly number[])[] };
    readonly scrollOffsetX?: number;
    readonly scrollOffsetY?: number;
  }[];
}

export interface PageTreeOptions {
  readonly viewportOnly: boolean;
  readonly viewport: { readonly width: number; readonly height: number };
  readonly maxChars: number;
}

/** The current tree of the page behind `cdp`. */
export async function readPageTree(cdp: CDPSession, options: PageTreeOptions): Promise<AxTreeText> {
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree', {})) as unknown as { nodes: RawAxNode[] };
  if (!options.viewportOnly) return formatAxTree(nodes, { maxChars: options.maxChars });
  const snapshot = (await cdp.send('DOMSnapshot.captureSnapshot', { computedStyles: [], includeDOMRects: true })) as unknown as LayoutSnapshot;
  const main = snapshot.documents[0];
  const bounds = new Map<number, Rect>();
  if (main) {
    const backendIds = main.nodes.backendNodeId ?? [];
    main.layout.nodeIndex.forEach((index, k) => {
      const id = backendIds[index];
      const box = main.layout.bounds[k];
      if (id !== undefined && box && box.length >= 4) bounds.set(id, [box[0]!, box[1]!, box[2]!, box[3]!]);
    });
  }
  const viewport = { x: main?.scrollOffsetX ?? 0, y: main?.scrollOffsetY ?? 0, ...options.viewport };
  return formatAxTree(nodes, { maxChars: options.maxChars, viewport, bounds });
}
