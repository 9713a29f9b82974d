/**
 * The order in which the policy decodes an action's words. Env action grammars put the verb
 * first ("pickup yellow ball 1"), so a token-by-token decoder commits to the verb before it has
 * chosen the object. Decoding the words last to first ("1 ball yellow pickup") chooses the object
 * first and the verb given it; the env still receives its own action string (the action trie
 * maps back). The policy's contexts, its recorded token ids and the learner's constrained
 * distribution all use the same encoding, so rollouts and training agree token for token.
 */
export type ActionWordOrder = 'as-written' | 'reversed';

/** "pickup yellow ball 1" ↔ "1 ball yellow pickup" (its own inverse). */
export function reverseWords(text: string): string {
  return text.trim().split(/\s+/).reverse().join(' ');
}

/** The policy's view of an action's text under `order`. */
export function orderActionWords(text: string, order: ActionWordOrder): string {
  return order === 'reversed' ? reverseWords(text) : text;
}

/** How the policy and the learner tokenize an action. */
export function actionEncoder(encode: (text: string) => number[], order: ActionWordOrder): (text: string) => number[] {
  return order === 'reversed' ? (text) => encode(reverseWords(text)) : encode;
}

export const ACTION_WORD_ORDERS: readonly ActionWordOrder[] = ['as-written', 'reversed'];

export function parseActionWords(text: string): ActionWordOrder {
  if ((ACTION_WORD_ORDERS as readonly string[]).includes(text)) return text as ActionWordOrder;
  throw new Error(`unknown action word order "${text}"; expected one of ${ACTION_WORD_ORDERS.join(', ')}`);
}
