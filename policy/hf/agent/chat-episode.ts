/**
 * One episode's conversation as the Hugging Face agent holds it: the chat messages, the text its
 * tokens spell, and the format-error note for the next turn. HfPolicy and `encodeEpisode` (SFT)
 * both build their ids through it, so what SFT trains on is what the policy reads at play.
 *
 * Turn 0 renders the whole chat template with the generation prompt (the prompt's system message
 * when it has one, then the first user turn). Each reply is appended as the ids sampled; each later
 * turn appends exactly the ids the template adds for the reply's end, the next user turn and the
 * generation prompt (`HfTokenizer.continueChat`). So the ids held equal the template's render of
 * the whole conversation, tokenized, whenever the replies' ids are their text's own encoding
 * (forced and SFT replies always; a sampled reply may spell its text with other ids, and those
 * sampled ids are kept, since they are what the model scored).
 *
 * A template that rewrites an earlier turn once a new one follows (Qwen3 drops a past reply's
 * <think> block) renders no extension of what is held. Then the turn appends what the template
 * writes after the reply (`afterReply`): the ids read are still the model's own, the render of the
 * whole conversation differs from them by the rewritten part.
 */
import type { PromptTemplate } from '../../../envs/contract.ts';
import { nextUserMessage, openingMessages, readReply, type ReadReply, type TurnInput } from '../../llm/llm-policy.ts';
import type { ChatMessage, HfTokenizer } from '../tokenizer/index.ts';
import { HfPolicyError } from './hf-policy-error.ts';

/** A reply as the conversation read it: the text (without the stop token) and how the env reads it. */
export interface ReadHfReply extends ReadReply {
  readonly text: string;
}

export class ChatEpisode {
  private readonly messages: ChatMessage[] = [];
  /** The text the held ids spell. */
  private held = '';
  private note: string | undefined;
  /** The last reply's stop token text ('' when it was cut by maxNewTokens). */
  private stopText = '';

  constructor(
    private readonly tokenizer: HfTokenizer,
    private readonly prompt: PromptTemplate,
  ) {}

  /** The messages so far (a chat-only server is sent these; the ids held are their render). */
  get conversation(): readonly ChatMessage[] {
    return this.messages;
  }

  /** The ids of the opening render (system, first user turn, generation prompt). */
  open(turn: TurnInput): number[] {
    this.messages.push(...openingMessages(this.prompt, turn));
    this.held = this.tokenizer.applyChatTemplate(this.messages, { addGenerationPrompt: true });
    return this.tokenizer.encode(this.held, { addSpecialTokens: false });
  }

  /**
   * Takes the reply's ids (`stopped`: its last id is the stop id that ended it; otherwise the reply
   * was cut by maxNewTokens and what there is is parsed).
   */
  reply(ids: readonly number[], stopped: boolean): ReadHfReply {
    const content = stopped ? ids.slice(0, -1) : ids;
    const text = this.tokenizer.decode(content);
    this.stopText = stopped ? this.tokenizer.decode(ids.slice(-1)) : '';
    this.held += text + this.stopText;
    this.messages.push({ role: 'assistant', content: text });
    const read = readReply(this.prompt, text);
    this.note = read.note;
    return { ...read, text };
  }

  /** The ids a later turn appends: the reply's end as the template writes it, the user turn, the generation prompt. */
  next(turn: TurnInput): number[] {
    this.messages.push(nextUserMessage(this.prompt, turn, this.note));
    const added = this.tokenizer.continueChat(this.held, this.messages, { addGenerationPrompt: true }) ?? this.afterReply();
    this.held += added.text;
    return added.ids;
  }

  /**
   * What the template writes between the last reply's content and the next reply: rendered with a
   * marker in place of that reply's content, the text after the marker, less the stop token the
   * model already emitted. The cut must sit next to an added token (chat-continuation.ts says why).
   */
  private afterReply(): { text: string; ids: number[] } {
    const marker = '\u0000actorgym-reply\u0000';
    const last = this.messages.length - 2;
    const marked = this.messages.map((m, i) => (i === last ? { ...m, content: marker } : m));
    const render = this.tokenizer.applyChatTemplate(marked, { addGenerationPrompt: true });
    const at = render.lastIndexOf(marker);
    const after = at < 0 ? undefined : render.slice(at + marker.length);
    const special = this.tokenizer.stopIds.map((id) => this.tokenizer.decode([id]));
    // The template's own end of the reply (<|im_end|>), when it writes one right after the content.
    const templateEnd = after === undefined ? undefined : special.find((s) => s !== '' && after.startsWith(s));
    let text: string | undefined;
    if (after !== undefined && this.stopText === '') {
      // Cut by maxNewTokens: the template's end closes the reply.
      text = templateEnd !== undefined ? after : undefined;
    } else if (after !== undefined) {
      // The model ended the reply with a stop id; when it is another one than the template writes
      // (<|endoftext|> for <|im_end|>), the sampled id stands in for the template's.
      const end = after.startsWith(this.stopText) ? this.stopText : templateEnd;
      text = end !== undefined ? after.slice(end.length) : undefined;
    }
    if (text === undefined) {
      throw new HfPolicyError(
        'HF_POLICY_TEMPLATE',
        `the chat template of ${this.tokenizer.dir} neither extends the conversation held so far nor writes the reply's end token after a reply, ` +
          'so the next turn cannot be appended to the cached tokens',
      );
    }
    return { text, ids: this.tokenizer.encode(text, { addSpecialTokens: false }) };
  }
}

/**
 * The id an assistant turn ends with: the tokenizer's eos_token when it is a stop id (Qwen's
 * <|im_end|>, Llama 3 Instruct's <|eot_id|>), else the first stop id.
 */
export function endOfTurnId(tokenizer: HfTokenizer): number {
  const eos = tokenizer.specialTokens.eos_token;
  const eosId = typeof eos === 'string' ? tokenizer.tokenToId(eos) : undefined;
  if (eosId !== undefined && tokenizer.stopIds.includes(eosId)) return eosId;
  const first = tokenizer.stopIds[0];
  if (first === undefined) throw new HfPolicyError('HF_POLICY_NO_STOP_ID', `${tokenizer.dir}: neither generation_config.json's eos_token_id nor tokenizer_config.json's eos_token names an id that ends a reply`);
  return first;
}
