/**
 * `POST /v1/chat/completions`: reads and checks the body, reads the conversation back into the
 * served policy's view, and answers one completion — whole, or as an SSE stream of chunks when
 * the request asks for `stream: true`. Errors before the first byte are thrown (the server
 * answers them in OpenAI's shape); an error once a stream has started ends the stream with it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequest, readJsonBody } from '../agentgym-http/http-io.ts';
import { ApiError, asApiError, sendJson } from './api-error.ts';
import { closingChunks, completionObject, roleChunk, usageOf, type CompletionMeta } from './completion-objects.ts';
import { parseChatCompletionBody, type ChatCompletionBody } from './request-schema.ts';
import type { Sampling, ServedPolicy, ServedReply } from './served-policy.ts';
import { SseWriter } from './sse-writer.ts';

export interface ChatCompletionOptions {
  readonly served: ServedPolicy;
  /** The model named in every reply. */
  readonly modelId: string;
  readonly maxBodyBytes: number;
  /** Milliseconds, for `created` stamps. */
  readonly now: () => number;
}

export class ChatCompletion {
  constructor(private readonly options: ChatCompletionOptions) {}

  async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { served, modelId, now } = this.options;
    const body = parseChatCompletionBody(await this.readBody(req));
    const view = served.read(body.messages);
    const meta: CompletionMeta = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(now() / 1000), model: modelId };
    const reply = () => served.reply(body.messages, view, samplingOf(body));
    if (!body.stream) {
      const { content, promptTokens, completionTokens } = await reply();
      return sendJson(res, 200, completionObject(meta, content, usageOf(promptTokens, completionTokens)));
    }
    await stream(res, meta, body.includeUsage, reply);
  }

  /** The JSON body; a bad or oversized one is OpenAI's 400 or 413. */
  private async readBody(req: IncomingMessage): Promise<unknown> {
    try {
      return await readJsonBody(req, this.options.maxBodyBytes);
    } catch (error) {
      if (!(error instanceof BadRequest)) throw error;
      throw error.status === 413 ? new ApiError(413, 'body_too_large', error.message) : new ApiError(400, 'invalid_request', error.message);
    }
  }
}

function samplingOf(body: ChatCompletionBody): Sampling {
  return {
    ...(body.seed !== undefined ? { seed: body.seed } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.topP !== undefined ? { topP: body.topP } : {}),
  };
}

/** Opens the SSE stream with the role chunk before decoding, so a client sees the reply start at once. */
async function stream(res: ServerResponse, meta: CompletionMeta, includeUsage: boolean, reply: () => Promise<ServedReply>): Promise<void> {
  const sse = new SseWriter(res);
  sse.open();
  sse.send(roleChunk(meta, includeUsage));
  try {
    const { content, promptTokens, completionTokens } = await reply();
    for (const chunk of closingChunks(meta, content, includeUsage ? usageOf(promptTokens, completionTokens) : undefined)) sse.send(chunk);
    sse.done();
  } catch (error) {
    sse.fail(asApiError(error).toJSON());
  }
}
