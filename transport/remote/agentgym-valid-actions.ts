/**
 * The valid actions of an AgentGym env server's state, read from what each family offers
 * (docs/agentgym-http.md, "Valid actions"), so `info.availableActions` is filled and a random
 * agent or constrained decoding has a finite set:
 *
 * - BabyAI: the observation's trailing `Available actions: ["a", "b"]`;
 * - TextCraft: the reset observation's `Crafting commands:` (each command verbatim, a `get` for
 *   every ingredient no command makes, and `inventory`);
 * - SciWorld: `GET /action_hint` — ScienceWorld's action templates filled with its objects, or
 *   actorgym's exact `valid_actions`;
 * - WebShop: `GET /available_actions` — `click[x]` per clickable, and `search[<instruction>]`
 *   while the search bar is shown.
 */

const ACTIONS_MARK = 'Available actions: [';

/** Reads BabyAI's trailing `Available actions: ["a", "b"]`; undefined when there is none. */
export function listedActions(observation: string): readonly string[] | undefined {
  const at = observation.lastIndexOf(ACTIONS_MARK);
  if (at < 0) return undefined;
  const end = observation.indexOf(']', at);
  try {
    const list: unknown = JSON.parse(observation.slice(at + ACTIONS_MARK.length - 1, end + 1));
    return Array.isArray(list) && list.every((a) => typeof a === 'string') ? list : undefined;
  } catch {
    return undefined;
  }
}

const CRAFT_LINE = /^craft (\d+) (.+?) using (.+)$/;
const INGREDIENT = /^(\d+) (.+)$/;

/**
 * TextCraft's actions from its reset observation (`Crafting commands:\n…\n\nGoal: craft X.`):
 * every command as written, `get N item` for each ingredient that no command crafts (counts as
 * the commands use them), and `inventory`. Undefined when the text has no commands. Generic
 * tags (`planks`) stay as written: the env refuses them, as it would refuse the agent.
 */
export function textcraftActions(observation: string): readonly string[] | undefined {
  const at = observation.indexOf('Crafting commands:\n');
  if (at < 0) return undefined;
  const lines = observation.slice(at + 'Crafting commands:\n'.length).split('\n');
  const crafts: string[] = [];
  const outputs = new Set<string>();
  const inputs: Array<{ count: string; name: string }> = [];
  for (const line of lines) {
    const match = CRAFT_LINE.exec(line.trim());
    if (!match) {
      if (line.trim() === '' || line.startsWith('Goal:')) break;
      continue;
    }
    crafts.push(line.trim());
    outputs.add(match[2] as string);
    for (const part of (match[3] as string).split(',')) {
      const ingredient = INGREDIENT.exec(part.trim());
      if (ingredient) inputs.push({ count: ingredient[1] as string, name: ingredient[2] as string });
    }
  }
  if (crafts.length === 0) return undefined;
  const gets = inputs.filter((i) => !outputs.has(i.name)).map((i) => `get ${i.count} ${i.name}`);
  return [...new Set([...crafts, ...gets, 'inventory'])];
}

/** Largest action list a SciWorld template expansion yields; beyond it, an evenly spaced subset. */
export const MAX_EXPANDED_ACTIONS = 2000;

const SLOT = /\b(OBJ|LOC)\b/g;

/**
 * ScienceWorld's `getPossibleActions()` templates (`open OBJ`, `connect OBJ to OBJ`,
 * `go to LOC`) with every slot filled by every object of `getPossibleObjects()`, pairs of the
 * same object skipped. Two-slot templates over many objects run into the thousands, so the list
 * is cut to `max` evenly spaced entries, always keeping the slot-free ones (`look around`).
 */
export function expandTemplates(templates: readonly string[], objects: readonly string[], max = MAX_EXPANDED_ACTIONS): string[] {
  const fixed: string[] = [];
  const filled: string[] = [];
  for (const template of templates) {
    const slots = template.match(SLOT)?.length ?? 0;
    if (slots === 0) {
      fixed.push(template);
      continue;
    }
    let partial: Array<{ text: string; used: string[] }> = [{ text: template, used: [] }];
    for (let s = 0; s < slots; s++) {
      partial = partial.flatMap(({ text, used }) =>
        objects.filter((o) => !used.includes(o)).map((o) => ({ text: text.replace(/\b(OBJ|LOC)\b/, o), used: [...used, o] })),
      );
    }
    for (const { text } of partial) filled.push(text);
  }
  const room = Math.max(0, max - fixed.length);
  if (filled.length <= room) return [...fixed, ...filled];
  const step = filled.length / room;
  return [...fixed, ...Array.from({ length: room }, (_, i) => filled[Math.floor(i * step)] as string)];
}

/** The valid actions of a `GET /action_hint` reply: actorgym's `valid_actions`, else SciWorld's templates × objects. */
export function actionsFromHint(reply: unknown): readonly string[] | undefined {
  if (typeof reply !== 'object' || reply === null) return undefined;
  const hint = reply as Record<string, unknown>;
  if (isStrings(hint['valid_actions'])) return hint['valid_actions'];
  if (isStrings(hint['possible_actions']) && isStrings(hint['possible_objects'])) return expandTemplates(hint['possible_actions'], hint['possible_objects']);
  return undefined;
}

/** WebShop's instruction in its text observation (`… Instruction: [SEP] <text> [SEP] …`). */
export function webshopInstruction(observation: string): string | undefined {
  const match = /Instruction:\s*\[SEP\]\s*(.+?)\s*\[SEP\]/.exec(observation);
  return match?.[1];
}

/** The actions of a WebShop `GET /available_actions` reply (`{has_search_bar, clickables}`). */
export function webshopActions(reply: unknown, observation: string): readonly string[] | undefined {
  if (typeof reply !== 'object' || reply === null) return undefined;
  const { has_search_bar: search, clickables } = reply as Record<string, unknown>;
  if (!isStrings(clickables)) return undefined;
  const actions = clickables.filter((c) => c !== 'search').map((c) => `click[${c}]`);
  const instruction = webshopInstruction(observation);
  // A search needs words: the instruction's own are the simplest query a baseline can send.
  if (search === true && instruction !== undefined) actions.unshift(`search[${instruction}]`);
  return actions;
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
