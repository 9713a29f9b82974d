/**
 * Finds the DOM element behind an observation `[id]` (its backend node id, via CDP) and marks it
 * with a one-off attribute for Playwright locators (fill, selectOption). It scrolls the element
 * into view and returns the centre of its box: clicks and hovers are mouse events there, as
 * WebArena does, without Playwright's actionability waits (which stall under load). A text node acts through its parent element; an `<option>` through its `<select>`.
 */
import type { CDPSession, Locator, Page } from 'playwright-core';

export const TARGET_ATTRIBUTE = 'data-actorgym-target';

export interface TargetElement {
  readonly locator: Locator;
  /** Upper-case tag name of the element acted on (`SELECT` for an option). */
  readonly tag: string;
  /** For an `<option>`: its value, to select it in its `<select>`. */
  readonly optionValue?: string;
  /** Whether typing replaces a value (`input`, `textarea`, content-editable). */
  readonly editable: boolean;
  /** Centre of the node's box in viewport pixels after scrolling it into view, or undefined when it has no box (hidden). */
  readonly centre?: { readonly x: number; readonly y: number };
  /** For a `<select>`: its options as [value, label]. */
  readonly options?: readonly (readonly [string, string])[];
}

// Runs in the page with `this` = the resolved node; a string because lib has no DOM types.
const MARK = `function (mark) {
  let el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  let optionValue = null;
  if (el.tagName === 'OPTION') {
    optionValue = el.value;
    el = el.closest('select') || el;
  }
  for (const old of document.querySelectorAll('[${TARGET_ATTRIBUTE}]')) old.removeAttribute('${TARGET_ATTRIBUTE}');
  el.setAttribute('${TARGET_ATTRIBUTE}', mark);
  const textInput = el.tagName === 'INPUT' && !['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'range', 'color'].includes(el.type);
  if (el.scrollIntoViewIfNeeded) el.scrollIntoViewIfNeeded(true); else el.scrollIntoView({ block: 'center' });
  let rect = el.getBoundingClientRect();
  if (this.nodeType === 3) { const range = document.createRange(); range.selectNodeContents(this); rect = range.getBoundingClientRect(); }
  const centre = rect.width > 0 && rect.height > 0 ? { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 } : null;
  const options = el.tagName === 'SELECT' ? [...el.options].map((o) => [o.value, o.label]) : null;
  return { tag: el.tagName, optionValue, options, centre, editable: textInput || el.tagName === 'TEXTAREA' || el.isContentEditable };
}`;

let marks = 0;

/** The element for `backendNodeId`, or undefined when it is no longer in the page. */
export async function markElement(page: Page, cdp: CDPSession, backendNodeId: number): Promise<TargetElement | undefined> {
  let objectId: string | undefined;
  try {
    objectId = (await cdp.send('DOM.resolveNode', { backendNodeId })).object.objectId;
  } catch {
    return undefined;
  }
  if (!objectId) return undefined;
  const mark = String(++marks);
  const { result } = await cdp.send('Runtime.callFunctionOn', {
    objectId,
    functionDeclaration: MARK,
    arguments: [{ value: mark }],
    returnByValue: true,
  });
  await cdp.send('Runtime.releaseObject', { objectId }).catch(() => undefined);
  const info = result.value as { tag: string; optionValue: string | null; editable: boolean; options: [string, string][] | null; centre: { x: number; y: number } | null } | null;
  if (!info) return undefined;
  return {
    locator: page.locator(`[${TARGET_ATTRIBUTE}="${mark}"]`),
    tag: info.tag,
    editable: info.editable,
    ...(info.optionValue !== null ? { optionValue: info.optionValue } : {}),
    ...(info.options !== null ? { options: info.options } : {}),
    ...(info.centre !== null ? { centre: info.centre } : {}),
  };
}

/** The option of a `<select>` whose label matches `text` (case and outer spaces ignored), else whose value is `text`. */
export function findOption(options: readonly (readonly [string, string])[], text: string): readonly [string, string] | undefined {
  const wanted = text.trim().toLowerCase();
  return options.find(([, label]) => label.trim().toLowerCase() === wanted) ?? options.find(([value]) => value === text);
}
