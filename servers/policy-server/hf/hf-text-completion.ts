/**
 * `POST /v1/completions` for a served Hugging Face model: a prompt of token ids (or text) in, the
 * sampled ids and their log-probs out, generated in the same batches as the chat route. What a
 * token-exact client (`--agent openai:MODEL --tokenizer hf:DIR`, policy/llm/token-llm-policy.ts)
 * sends: the chat template rendered on its side, so nothing is re-rendered or re-tokenized here.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../api-error.ts';
import type { CompletionMeta } from '../completion-objects.ts';
import type { HfChatCompletionOptions } from './hf-chat-completion.ts';
import { hfTextCompletionObject } from './hf-completion-objects.ts';
import { checkModelName, readHfBody } from './hf-route-io.ts';
import { parseHfTextBody } from './hf-text-request-schema.ts';

export class HfTextCompletion {
  constructor(private readonly options: HfChatCompletionOptions) {}

  async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { served, now, aliases, maxBodyBytes } = this.options;
    const request = parseHfTextBody(await readHfBody(req, maxBodyBytes));
    checkModelName(request.model, [served.modelId, ...aliases]);
    const job = served.prepareText(request);
    const meta: CompletionMeta = { id: `cmpl-${randomUUID()}`, created: Math.floor(now() / 1000), model: served.modelId };
    const generation = await served.generate(job, request.stop);
    sendJson(res, 200, hfTextCompletionObject(meta, generation, { request, tokenText: (id) => served.tokenText(id) }));
  }
}
