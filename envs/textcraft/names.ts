/**
 * Item names as AgentGym's TextCraft writes and reads them. Internally an item or tag is its
 * bare Minecraft id (`dark_oak_planks`); AgentGym prefixes `minecraft:` and shows ids with
 * spaces. Keeping the bare id makes `text → id` exactly AgentGym's `item_str_to_obj` minus
 * the prefix, so every typo resolves to an id that simply is not known.
 */

/** AgentGym's `item_id_to_str`: `dark_oak_planks` (or `minecraft:dark_oak_planks`) → `dark oak planks`. */
export function itemText(id: string): string {
  return id.replaceAll('minecraft:', '').replaceAll('_', ' ');
}

/** AgentGym's `item_str_to_obj` without the prefix: `dark oak planks` → `dark_oak_planks`. */
export function itemId(text: string): string {
  return text.replaceAll(' ', '_');
}

/** The id as AgentGym prints it in messages: `minecraft:dark_oak_planks`. */
export function fullId(id: string): string {
  return `minecraft:${id}`;
}

/** Python's `repr` of a string (used where AgentGym formats a dataclass into a message). */
export function pyRepr(text: string | null): string {
  if (text === null) return 'None';
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text.replace(/[\\\n\r\t]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] as string);
  return quote + (quote === "'" ? escaped.replaceAll("'", "\\'") : escaped) + quote;
}
