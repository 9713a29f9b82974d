/**
 * Turns Chromium's accessibility tree (CDP `Accessibility.getFullAXTree`) into WebArena's text
 * form: one line per node, `[id] role 'name' property: value`, indented by depth with tabs. As
 * WebArena's `parse_accessibility_tree`: ignored nodes and empty generic containers are skipped
 * (their children move up), a StaticText already contained in one of the three lines before it
 * is dropped, and the id is the AX node id, mapped to the DOM backend node id for acting on it.
 * Unlike WebArena, the options of a drop-down (`<select>`) are listed under its combobox, with
 * `selected: True` on the chosen one, whenever the combobox is shown: closed, they have no box
 * on screen, and the viewport filter used to drop them, so an agent never saw its choices.
 * Pure: the CDP calls live in snapshot.ts.
 */

/** The part of a CDP `Accessibility.AXNode` we read. */
export interface RawAxNode {
  readonly nodeId: string;
  readonly ignored: boolean;
  readonly role?: { readonly value?: unknown };
  readonly name?: { readonly value?: unknown };
  readonly value?: { readonly value?: unknown };
  readonly properties?: readonly { readonly name: string; readonly value: { readonly value?: unknown } }[];
  readonly childIds?: readonly string[];
  readonly parentId?: string;
  readonly backendDOMNodeId?: number;
}

/** A box in page coordinates: x, y, width, height. */
export type Rect = readonly [number, number, number, number];

/** The visible part of the page, in page coordinates. */
export interface Viewport {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** What an `[id]` in the text stands for. */
export interface AxElement {
  readonly backendNodeId: number | undefined;
  readonly role: string;
  readonly name: string;
}

export interface AxTreeText {
  readonly text: string;
  /** Every id shown in `text` (after truncation), for resolving `click [id]` and friends. */
  readonly elements: ReadonlyMap<string, AxElement>;
  readonly truncated: boolean;
}

export interface FormatOptions {
  /** Keep only nodes at least `IN_VIEWPORT_RATIO` inside this viewport (WebArena's `current_viewport_only`). */
  readonly viewport?: Viewport;
  /** Layout boxes by backend node id; needed with `viewport`. */
  readonly bounds?: ReadonlyMap<number, Rect>;
  /** Cut the text at a line boundary before this many characters. */
  readonly maxChars: number;
}

/** Properties WebArena leaves out, plus `url` (long, and the link's name says where it goes). */
const IGNORED_PROPERTIES = new Set(['focusable', 'editable', 'readonly', 'level', 'settable', 'multiline', 'invalid', 'url']);
const EMPTY_SKIPPED_ROLES = new Set(['generic', 'img', 'list', 'strong', 'paragraph', 'banner', 'navigation', 'Section', 'LabelText', 'Legend', 'listitem', 'MenuListPopup']);
/** WebArena's threshold: a node is in view when at least this share of its box is. */
export const IN_VIEWPORT_RATIO = 0.6;

/** Python's repr of a string, as WebArena prints names. */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

function pyValue(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}

function inViewRatio(rect: Rect, view: Viewport): number {
  const [x, y, w, h] = rect;
  const overlapW = Math.max(0, Math.min(x + w, view.x + view.width) - Math.max(x, view.x));
  const overlapH = Math.max(0, Math.min(y + h, view.y + view.height) - Math.max(y, view.y));
  return (overlapW * overlapH) / (w * h);
}

function nodeLine(node: RawAxNode): { line: string; role: string; name: string; valid: boolean } | undefined {
  if (node.ignored || typeof node.role?.value !== 'string') return undefined;
  const role = node.role.value;
  if (role === 'InlineTextBox') return undefined;
  const name = typeof node.name?.value === 'string' ? node.name.value : '';
  const properties: string[] = [];
  const value = node.value?.value;
  if ((typeof value === 'string' && value !== '' && value !== name) || typeof value === 'number') properties.push(`value: ${pyRepr(String(value))}`);
  for (const property of node.properties ?? []) {
    if (IGNORED_PROPERTIES.has(property.name) || property.value.value === undefined) continue;
    properties.push(`${property.name}: ${pyValue(property.value.value)}`);
  }
  let valid = true;
  if (!name.trim()) {
    if (properties.length === 0 ? EMPTY_SKIPPED_ROLES.has(role) : role === 'listitem') valid = false;
  }
  if (role === 'StaticText' && !name.trim()) valid = false;
  const line = `[${node.nodeId}] ${role} ${pyRepr(name)}${properties.length ? ' ' + properties.join(' ') : ''}`;
  return { line, role, name, valid };
}

/** The tree as text, with the ids it shows. */
export function formatAxTree(nodes: readonly RawAxNode[], options: FormatOptions): AxTreeText {
  const byId = new Map<string, RawAxNode>();
  for (const node of nodes) if (!byId.has(node.nodeId)) byId.set(node.nodeId, node);
  const root = nodes.find((n) => n.parentId === undefined || !byId.has(n.parentId));
  const lines: { text: string; id: string; element: AxElement }[] = [];

  const visible = (node: RawAxNode, isRoot: boolean): boolean => {
    if (isRoot || !options.viewport) return true;
    const rect = node.backendDOMNodeId === undefined ? undefined : options.bounds?.get(node.backendDOMNodeId);
    if (!rect || rect[2] === 0 || rect[3] === 0) return false;
    return inViewRatio(rect, options.viewport) >= IN_VIEWPORT_RATIO;
  };

  // Iterative DFS: deep pages would overflow the stack with recursion.
  // `inSelect`: below a shown combobox, whose options count as shown with it.
  const stack: { id: string; depth: number; inSelect: boolean }[] = root ? [{ id: root.nodeId, depth: 0, inSelect: false }] : [];
  const seen = new Set<string>();
  while (stack.length) {
    const { id, depth, inSelect } = stack.pop()!;
    const node = byId.get(id);
    if (!node || seen.has(id)) continue;
    seen.add(id);
    const parsed = nodeLine(node);
    const shown = parsed !== undefined && parsed.valid && (inSelect || visible(node, node === root));
    if (shown) {
      lines.push({ text: '\t'.repeat(depth) + parsed.line, id, element: { backendNodeId: node.backendDOMNodeId, role: parsed.role, name: parsed.name } });
    }
    const childInSelect = inSelect || (shown && parsed.role === 'combobox');
    const children = node.childIds ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ id: children[i]!, depth: shown ? depth + 1 : depth, inSelect: childInSelect });
  }

  // WebArena's clean_accesibility_tree: drop StaticText repeating one of the 3 lines before it.
  const kept: typeof lines = [];
  for (const line of lines) {
    if (line.element.role === 'StaticText') {
      const previous = kept.slice(-3);
      if (previous.some((p) => p.text.includes(line.element.name))) continue;
    }
    kept.push(line);
  }

  const elements = new Map<string, AxElement>();
  let text = '';
  let truncated = false;
  for (let i = 0; i < kept.length; i++) {
    const line = kept[i]!;
    if (text.length + line.text.length + 1 > options.maxChars) {
      truncated = true;
      text += `\n[... ${kept.length - i} more lines not shown: the tree is cut at ${options.maxChars} characters]`;
      break;
    }
    text += (text ? '\n' : '') + line.text;
    elements.set(line.id, line.element);
  }
  return { text, elements, truncated };
}
