/**
 * What both completion routes of a served Hugging Face model do before generating: read the JSON
 * body (OpenAI's 400 or 413 when it is bad or too large) and check the model name it asks for.
 */
import type { IncomingMessage } from 'node:http';
import { BadRequest, readJsonBody } from '../../agentgym-http/http-io.ts';
import { ApiError } from '../api-error.ts';

/** The JSON body; a bad or oversized one is OpenAI's 400 or 413. */
export async function readHfBody(req: IncomingMessage, maxBodyBytes: number): Promise<unknown> {
  try {
    return await readJsonBody(req, maxBodyBytes);
  } catch (error) {
    if (!(error instanceof BadRequest)) throw error;
    throw error.status === 413 ? new ApiError(413, 'body_too_large', error.message) : new ApiError(400, 'invalid_request', error.message);
  }
}

/** A 400 naming what is served when `model` is not one of `known` (the served id first). */
export function checkModelName(model: string, known: readonly string[]): void {
  if (!known.includes(model)) {
    throw new ApiError(400, 'invalid_request', `model: no model "${model}" here; this server serves ${known.map((k) => `"${k}"`).join(' (or ')}${known.length > 1 ? ')' : ''} (GET /v1/models)`, 'model');
  }
}
