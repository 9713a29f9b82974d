/**
 * `POST /v1/chat/completions` for a served Hugging Face model: reads and checks the body, checks
 * the model name, renders and sizes the prompt (a 400 before anything is queued), generates in
 * the next batch and answers — whole, or as an SSE stream of chunks when the request asks for
 * `stream: true` (the stream opens at once; the text arrives in one chunk once decoding ends).
 * Errors before the first byte are thrown (the server answers them in OpenAI's shape); an error
 * once a stream has started ends the stream with it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { asApiError, sendJson } from '../api-error.ts';
import { checkModelName, readHfBody } from './hf-route-io.ts';
import type { CompletionMeta } from '../completion-objects.ts';
import { SseWriter } from '../sse-writer.ts';
import { hfClosingChunks, hfCompletionObject, hfRoleChunk, type ReplyShape } from './hf-completion-objects.ts';
import { parseHfChatBody, type HfChatRequest } from './hf-request-schema.ts';
import type { HfServedModel, ServedGeneration } from './hf-served-model.ts';

export interface HfChatCompletionOptions {
  readonly served: HfServedModel;
  /** Names a request may use for the model besides `served.modelId` (the folder name without `hf:`). */
  readonly aliases: readonly string[];
  readonly maxBodyBytes: number;
  /** Milliseconds, for `created` stamps. */
  readonly now: () => number;
}

export class HfChatCompletion {
  constructor(private readonly options: HfChatCompletionOptions) {}

  async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { served, now } = this.options;
    const request = parseHfChatBody(await this.readBody(req));
    this.checkModel(request);
    const job = served.prepare(request);
    const meta: CompletionMeta = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(now() / 1000), model: served.modelId };
    const shape: ReplyShape = { request, tokenText: (id) => served.tokenText(id) };
    const reply = () => served.generate(job, request.stop);
    if (!request.stream) return sendJson(res, 200, hfCompletionObject(meta, await reply(), shape));
    await stream(res, meta, shape, request.includeUsage, reply);
  }

  private checkModel(request: HfChatRequest): void {
    checkModelName(request.model, [this.options.served.modelId, ...this.options.aliases]);
  }

  private readBody(req: IncomingMessage): Promise<unknown> {
    return readHfBody(req, this.options.maxBodyBytes);
  }
}

/** Opens the SSE stream with the role chunk before decoding, so a client sees the reply start at once. */
async function stream(res: ServerResponse, meta: CompletionMeta, shape: ReplyShape, includeUsage: boolean, reply: () => Promise<ServedGeneration>): Promise<void> {
  const sse = new SseWriter(res);
  sse.open();
  sse.send(hfRoleChunk(meta, includeUsage));
  try {
    const generation = await reply();
    for (const chunk of hfClosingChunks(meta, generation, shape, includeUsage)) sse.send(chunk);
    sse.done();
  } catch (error) {
    sse.fail(asApiError(error).toJSON());
  }
}
