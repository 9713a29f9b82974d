/**
 * Drop-downs (issue 39): a `<select>`'s options are listed under its combobox, with the chosen
 * one marked, even while it is closed and with the viewport filter on (the env's default); and
 * `select [id] [option]` chooses one, through a real browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAxTree, type RawAxNode } from '../../../envs/web/browser/ax-tree.ts';
import { BrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { formatWebAction, parseWebAction } from '../../../envs/web/browser/grammar.ts';
import type { WebObservation } from '../../../envs/web/browser/observation.ts';
import { openWebSession, type ActResult, type WebSession } from '../../../envs/web/browser/web-session.ts';
import { startFixtureServer, type FixtureServer } from '../../../envs/web/fixtures/fixture-server.ts';
import { runBrowserTests } from './fixtures/chromium.ts';

describe('select [id] [option] in the grammar', () => {
  it('parses, writes back, and explains a malformed select', () => {
    expect(parseWebAction('select [5] [Price]')).toEqual({ ok: true, action: { kind: 'select', id: '5', option: 'Price' } });
    expect(parseWebAction('select [5] [ Low to High [cheap] ]')).toEqual({ ok: true, action: { kind: 'select', id: '5', option: 'Low to High [cheap]' } });
    expect(formatWebAction({ kind: 'select', id: '5', option: 'Price' })).toBe('select [5] [Price]');
    for (const bad of ['select [5]', 'select [x] [Price]', 'select [5] []']) {
      expect(parseWebAction(bad)).toEqual({ ok: false, error: `Invalid action '${bad}': expected 'select [id] [option]'.` });
    }
  });
});

describe('drop-down options in the accessibility tree', () => {
  // Chromium's tree for <select><option>Name<option selected>Price</select>: the options have no box while closed.
  const node = (nodeId: string, role: string, name: string, parentId: string | undefined, childIds: string[], extra: Partial<RawAxNode> = {}): RawAxNode => ({
    nodeId, ignored: false, role: { value: role }, name: { value: name }, childIds, backendDOMNodeId: Number(nodeId), ...(parentId ? { parentId } : {}), ...extra,
  });
  const selected = (value: boolean) => ({ properties: [{ name: 'selected', value: { value } }] });
  const nodes: RawAxNode[] = [
    node('1', 'RootWebArea', 'Shop', undefined, ['2', '9']),
    node('2', 'combobox', 'Sort by', '1', ['3'], { properties: [{ name: 'expanded', value: { value: false } }] }),
    node('3', 'MenuListPopup', '', '2', ['4', '5']),
    node('4', 'option', 'Name', '3', [], selected(false)),
    node('5', 'option', 'Price', '3', [], selected(true)),
    node('9', 'option', 'Stray option off screen', '1', [], selected(false)),
  ];
  const bounds = new Map<number, readonly [number, number, number, number]>([[1, [0, 0, 1280, 720]], [2, [10, 10, 100, 20]]]);

  it('lists the options of a shown combobox as its children, with selected, though they have no box', () => {
    const { text, elements } = formatAxTree(nodes, { maxChars: 10_000, viewport: { x: 0, y: 0, width: 1280, height: 720 }, bounds });
    expect(text).toBe([
      "[1] RootWebArea 'Shop'",
      "\t[2] combobox 'Sort by' expanded: False",
      "\t\t[4] option 'Name' selected: False",
      "\t\t[5] option 'Price' selected: True",
    ].join('\n'));
    expect(elements.get('5')).toEqual({ backendNodeId: 5, role: 'option', name: 'Price' });
  });

  it('leaves them out when the combobox itself is off screen', () => {
    const away = new Map(bounds).set(2, [10, 2000, 100, 20]);
    const { text } = formatAxTree(nodes, { maxChars: 10_000, viewport: { x: 0, y: 0, width: 1280, height: 720 }, bounds: away });
    expect(text).toBe("[1] RootWebArea 'Shop'");
  });
});

describe.skipIf(!runBrowserTests)('select through the browser', () => {
  const host = new BrowserHost({ idleCloseMs: 60_000 });
  let server: FixtureServer;
  let session: WebSession;
  let seen: WebObservation;

  const act = async (text: string): Promise<ActResult> => {
    const parsed = parseWebAction(text);
    if (!parsed.ok) throw new Error(parsed.error);
    const result = await session.act(parsed.action);
    seen = await session.observe();
    return result;
  };
  const idOf = (pattern: RegExp): string => {
    const line = seen.tree.split('\n').find((l) => pattern.test(l));
    if (!line) throw new Error(`no line matches ${pattern} in:\n${seen.tree}`);
    return /\[(\d+)\]/.exec(line)![1]!;
  };
  /** The lines from the combobox to its last option. */
  const dropDown = (): string[] => {
    const lines = seen.tree.split('\n');
    const start = lines.findIndex((l) => /combobox 'Sort by'/.test(l));
    return lines.slice(start, start + 3).map((l) => l.trim().replace(/^\[\d+\] /, ''));
  };

  beforeAll(async () => {
    server = await startFixtureServer();
    // viewportOnly on, as the env runs: the closed options have no box on screen.
    session = await openWebSession({ instanceId: 'select-1', startUrl: `${server.url}/index.html`, host, viewportOnly: true });
    seen = await session.observe();
  });
  afterAll(async () => {
    await session?.close();
    await host.close();
    await server?.close();
  });

  it('shows the closed drop-down with its options and the chosen one', () => {
    expect(dropDown()).toEqual([expect.stringMatching(/^combobox 'Sort by'/), "option 'Name' selected: True", "option 'Price' selected: False"]);
  });

  it('select [id] [option] chooses by label (any case), and the tree follows', async () => {
    expect(await act(`select [${idOf(/combobox 'Sort by'/)}] [price]`)).toEqual({ ok: true, message: '', stopped: false });
    expect(seen.tree).toContain("StaticText 'Sorted by price'");
    expect(dropDown().slice(1)).toEqual(["option 'Name' selected: False", "option 'Price' selected: True"]);
    // An option's id stands for its drop-down.
    expect((await act(`select [${idOf(/option 'Name'/)}] [Name]`)).ok).toBe(true);
    expect(seen.tree).toContain("StaticText 'Sorted by name'");
  });

  it('explains an unknown option and an element that is not a drop-down', async () => {
    expect(await act(`select [${idOf(/combobox 'Sort by'/)}] [Colour]`)).toEqual({ ok: false, stopped: false, message: expect.stringMatching(/has no option 'Colour'; its options are 'Name', 'Price'\.$/) });
    expect(await act(`select [${idOf(/checkbox 'I agree'/)}] [yes]`)).toEqual({ ok: false, stopped: false, message: expect.stringContaining('is not a drop-down list') });
  });
});
