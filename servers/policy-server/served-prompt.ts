/**
 * What the policy server needs of an env family's prompt template (`EnvDefinition.prompt`, envs/<family>/prompt.ts): read a
 * user turn back into the env's observation, parse an assistant turn into the action the env
 * received, and write a reply in the family's contract. The LLM policy renders conversations with
 * the same template, so the server reads exactly what the policy sent.
 */
export interface ReadTurn {
  readonly observation: string;
  /** The actions the turn lists (BabyAI's observation carries its own `Available actions: [...]`). */
  readonly availableActions?: readonly string[];
}

export type ParsedReply =
  | { readonly ok: true; readonly action: string }
  /** A reply that names no action: the env received `envAction` (and rejected it). */
  | { readonly ok: false; readonly envAction: string };

export interface ServedPrompt {
  /** The observation of a user turn this template rendered (`first`: the task's first turn); undefined otherwise. */
  readTurn(userText: string, first: boolean): ReadTurn | undefined;
  parseReply(text: string): ParsedReply;
  /** `Thought: …\nAction: …` (Deep Search: its tags). */
  formatReply(thought: string, action: string): string;
}
