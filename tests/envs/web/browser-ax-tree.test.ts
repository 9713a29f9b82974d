import { describe, expect, it } from 'vitest';
import { formatAxTree, pyRepr, type RawAxNode } from '../../../envs/web/browser/ax-tree.ts';

const node = (nodeId: string, role: string, name: string, childIds: string[] = [], extra: Partial<RawAxNode> = {}): RawAxNode => ({
  nodeId,
  ignored: false,
  role: { value: role },
  name: { value: name },
  childIds,
  backendDOMNodeId: Number(nodeId) + 100,
  ...extra,
});

const page: RawAxNode[] = [
  node('1', 'RootWebArea', 'Shop', ['2'], { properties: [{ name: 'focused', value: { value: true } }, { name: 'focusable', value: { value: true } }] }),
  { nodeId: '2', ignored: true, role: { value: 'none' }, childIds: ['3'], parentId: '1' },
  node('3', 'generic', '', ['4', '5', '7'], { parentId: '2' }),
  node('4', 'link', "Men's shoes", [], { parentId: '3', properties: [{ name: 'url', value: { value: 'http://x/men' } }] }),
  node('5', 'button', 'Add to cart', ['6'], { parentId: '3' }),
  node('6', 'StaticText', 'Add to cart', [], { parentId: '5' }),
  node('7', 'textbox', 'Search', ['8'], {
    parentId: '3',
    value: { value: 'boots' },
    properties: [
      { name: 'required', value: { value: true } },
      { name: 'invalid', value: { value: 'false' } },
    ],
  }),
  node('8', 'StaticText', 'boots', [], { parentId: '7' }),
];

describe('formatAxTree', () => {
  it("prints WebArena's lines: ids, roles, repr'd names, kept properties, tabs by depth", () => {
    const tree = formatAxTree(page, { maxChars: 10_000 });
    expect(tree.text).toBe(
      [
        "[1] RootWebArea 'Shop' focused: True",
        '\t[4] link "Men\'s shoes"',
        "\t[5] button 'Add to cart'",
        "\t[7] textbox 'Search' value: 'boots' required: True",
      ].join('\n'),
    );
    // The ignored node and the empty generic are skipped; their children move up a level.
    expect([...tree.elements.keys()]).toEqual(['1', '4', '5', '7']);
    expect(tree.elements.get('5')).toEqual({ backendNodeId: 105, role: 'button', name: 'Add to cart' });
    expect(tree.truncated).toBe(false);
  });

  it('keeps a StaticText that does not repeat a line just above it', () => {
    const nodes = [...page.slice(0, 3), node('3', 'generic', '', ['9'], { parentId: '2' }), node('9', 'StaticText', 'Free delivery', [], { parentId: '3' })];
    expect(formatAxTree(nodes.slice(0, 2).concat(nodes.slice(3)), { maxChars: 1000 }).text).toContain("\t[9] StaticText 'Free delivery'");
  });

  it('cuts at the character budget at a line boundary and says so; cut ids are not actionable', () => {
    const tree = formatAxTree(page, { maxChars: 80 });
    expect(tree.truncated).toBe(true);
    expect(tree.text).toBe("[1] RootWebArea 'Shop' focused: True\n\t[4] link \"Men's shoes\"\n[... 2 more lines not shown: the tree is cut at 80 characters]");
    expect([...tree.elements.keys()]).toEqual(['1', '4']);
  });

  it('with a viewport, lists only nodes at least 60% inside it (the root always)', () => {
    const bounds = new Map([
      [104, [0, 100, 100, 20] as const],
      [105, [0, 690, 100, 60] as const], // half inside a 720-high view: dropped
      [107, [0, 900, 100, 20] as const],
    ]);
    const top = formatAxTree(page, { maxChars: 1000, bounds, viewport: { x: 0, y: 0, width: 1280, height: 720 } });
    expect([...top.elements.keys()]).toEqual(['1', '4']);
    const scrolled = formatAxTree(page, { maxChars: 1000, bounds, viewport: { x: 0, y: 680, width: 1280, height: 720 } });
    expect([...scrolled.elements.keys()]).toEqual(['1', '5', '7']);
  });
});

describe('pyRepr', () => {
  it("quotes as Python's repr does", () => {
    expect(pyRepr('plain')).toBe("'plain'");
    expect(pyRepr("it's")).toBe('"it\'s"');
    expect(pyRepr(`both ' and "`)).toBe(`'both \\' and "'`);
    expect(pyRepr('a\nb\\c')).toBe("'a\\nb\\\\c'");
  });
});
