/**
 * Special tokens, at fixed ids 0–5 in every vocabulary so that checkpoints and code can rely on
 * them. The multi-turn layout (docs/architecture.md, "The multi-turn token layout") is
 *   <bos> instruction+obs0 <act> a0 … </act> <obs> obs1 <act> a1 … </act> …
 */
export const SPECIAL_TOKENS = ['<pad>', '<bos>', '<act>', '</act>', '<obs>', '<unk>'] as const;
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

export const PAD_ID = 0;
/** Start of an episode. */
export const BOS_ID = 1;
/** Start of an agent turn (placed by the policy, not sampled: loss mask 0). */
export const ACT_ID = 2;
/** End of an action (sampled by the agent: loss mask 1). */
export const END_ACT_ID = 3;
/** Start of an observation after the first. */
export const OBS_ID = 4;
/** A character that the vocabulary does not hold. */
export const UNK_ID = 5;

export const NUM_SPECIAL = SPECIAL_TOKENS.length;

export const isSpecialId = (id: number): boolean => id >= 0 && id < NUM_SPECIAL;
