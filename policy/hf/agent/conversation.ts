/**
 * A whole episode rendered to ids, as the Hugging Face agent would hold it had it sampled these
 * replies: one place for the policy's layout and SFT's, built turn by turn through `ChatEpisode`
 * (chat-episode.ts) exactly as HfPolicy builds it at play.
 */
import type { PromptTemplate } from '../../../envs/contract.ts';
import type { HfTokenizer } from '../tokenizer/index.ts';
import { ChatEpisode, endOfTurnId } from './chat-episode.ts';

/** One turn of an episode: what the env showed and the reply the model gave (or should give). */
export interface ConversationTurn {
  readonly observation: string;
  readonly availableActions?: readonly string[];
  /** The reply text, without the end-of-turn token. */
  readonly reply: string;
}

export interface EncodedEpisode {
  readonly tokens: number[];
  /** 1 on each reply's ids and the end-of-turn id that closes it (what the model must emit), 0 elsewhere. */
  readonly mask: number[];
}

/**
 * The ids of `turns` as a conversation under `prompt`'s chat layout: the opening render (system,
 * first user turn, generation prompt), then per turn the reply's ids and the end-of-turn id, and
 * between turns the ids the chat template adds for the next user turn. It ends with the last
 * reply's end-of-turn id, as HfPolicy's record does.
 *
 * @example
 * const { tokens, mask } = encodeEpisode(tokenizer, promptOf(getEnv('babyai')), demoTurns(demo, prompt));
 */
export function encodeEpisode(tokenizer: HfTokenizer, prompt: PromptTemplate, turns: readonly ConversationTurn[]): EncodedEpisode {
  const chat = new ChatEpisode(tokenizer, prompt);
  const end = endOfTurnId(tokenizer);
  const tokens: number[] = [];
  const mask: number[] = [];
  const push = (ids: readonly number[], bit: 0 | 1): void => {
    for (const id of ids) {
      tokens.push(id);
      mask.push(bit);
    }
  };
  for (const [i, turn] of turns.entries()) {
    push(i === 0 ? chat.open(turn) : chat.next(turn), 0);
    const reply = [...tokenizer.encode(turn.reply, { addSpecialTokens: false }), end];
    chat.reply(reply, true);
    push(reply, 1);
  }
  return { tokens, mask };
}

/** What `demoTurns` reads of a demonstration (demos/demo.ts `Demo`). */
export interface DemoLike {
  readonly turns: readonly { readonly observation: string; readonly availableActions?: readonly string[] | undefined; readonly action: string }[];
}

/**
 * A demonstration's turns as conversation turns. Demos keep the action, not a reply text, so each
 * reply is `prompt.formatReply('', action)` — the env's reply format with an empty thought, the
 * layout `parseReply` reads back to the action and the one AgentTraj export writes
 * (demos/to-agenttraj.ts). HfPolicy is trained to produce that.
 */
export function demoTurns(demo: DemoLike, prompt: PromptTemplate): ConversationTurn[] {
  return demo.turns.map((turn) => ({
    observation: turn.observation,
    ...(turn.availableActions !== undefined ? { availableActions: turn.availableActions } : {}),
    reply: prompt.formatReply('', turn.action),
  }));
}
