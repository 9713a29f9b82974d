/**
 * `POST /v1/rollouts`: the body read and checked, the env opened, the batch planned and started,
 * then its stream: `started`, a `record` per scored episode, and `done` (or `error`) last. The
 * client closing the connection cancels the batch; the batch's env instances are given back and
 * its LLM client closed before its place is freed.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequest, readJsonBody } from '../agentgym-http/http-io.ts';
import { planBatch, type AdaptiveAsk, type PlanLimits } from './batch-plan.ts';
import type { BatchRegistry } from './batch-registry.ts';
import type { BatchRunner, RunningBatch } from './batch-runner.ts';
import type { EnvSource } from './env-source.ts';
import { NdjsonStream } from './ndjson-stream.ts';
import { RequestError } from './request-error.ts';
import { parseRolloutRequest } from './request-schema.ts';
import type { CurriculumTicket, RunCurricula } from './run-curricula.ts';
import type { OpsLog } from '../listener/ops-log.ts';

export interface RolloutsPostParts {
  readonly runner: BatchRunner;
  readonly envs: EnvSource;
  readonly batches: BatchRegistry;
  readonly limits: PlanLimits & { readonly maxBodyBytes: number };
  readonly log: OpsLog;
  /** The adaptive curricula, one per trainer run; absent: adaptive schedules are refused. */
  readonly curricula?: RunCurricula | undefined;
}

/** The batch's place in its run's curriculum (adaptive schedules only), taken when its horizon is planned. */
interface CurriculumPlace {
  readonly ask: AdaptiveAsk;
  readonly ticket: CurriculumTicket;
}

/** A refusal from the runner or the curricula (an error with a string `field`) as a 400; anything else as it is. */
function asFieldError(error: unknown): unknown {
  const field = (error as { field?: unknown }).field;
  return typeof field === 'string' && !(error instanceof RequestError) ? new RequestError(400, (error as Error).message, field) : error;
}

/** The horizon resolver handed to planBatch, and the place it took (if the request was adaptive). */
function curriculumOf(curricula: RunCurricula | undefined): { resolve?: (ask: AdaptiveAsk, tasks: number) => number; place: () => CurriculumPlace | undefined } {
  if (curricula === undefined) return { place: () => undefined };
  let place: CurriculumPlace | undefined;
  const resolve = (ask: AdaptiveAsk, tasks: number): number => {
    try {
      place = { ask, ticket: curricula.open({ ...ask, tasks }) };
    } catch (error) {
      throw asFieldError(error);
    }
    return place.ticket.horizon;
  };
  return { resolve, place: () => place };
}

/** What the `done` line says of the curriculum: the run, its step, the decision in force, and whether the batch was fed to it. */
function curriculumLine(place: CurriculumPlace, fed: boolean): Record<string, unknown> {
  const { ask, ticket } = place;
  return { run: ask.run, step: ask.step, ...(ticket.decision !== null ? { decision: ticket.decision } : {}), fed };
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  try {
    return await readJsonBody(req, maxBytes);
  } catch (error) {
    if (error instanceof BadRequest) throw new RequestError(error.status === 413 ? 413 : 400, error.message);
    throw error;
  }
}

function startBatch(parts: RolloutsPostParts, spec: Parameters<BatchRunner>[0], stream: NdjsonStream): RunningBatch {
  try {
    return parts.runner(spec, { record: (record) => stream.line({ type: 'record', record }) });
  } catch (error) {
    throw asFieldError(error);
  }
}

/** Answers one POST; throws a RequestError (answered by the routes) for anything refused before the stream opens. */
export async function postRollouts(parts: RolloutsPostParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!parts.batches.admit()) throw new RequestError(503, `the service runs ${parts.batches.maxBatches} batches already (its limit); retry later`);
  let id: string | undefined;
  const curriculum = curriculumOf(parts.curricula);
  let fed = false;
  try {
    const parsed = parseRolloutRequest(await readBody(req, parts.limits.maxBodyBytes));
    if (!parsed.ok) throw new RequestError(400, parsed.message, parsed.field);
    const env = await parts.envs.get(parsed.value.env);
    const spec = planBatch(`ro-${randomBytes(6).toString('hex')}`, parsed.value, env, parts.limits, curriculum.resolve);
    const stream = new NdjsonStream(res);
    const batch = startBatch(parts, spec, stream);
    id = spec.id;
    parts.batches.started(id, batch);
    const episodes = spec.tasks.length * spec.groupSize;
    parts.log('batch.started', { id, env: env.spec.id, episodes, concurrency: spec.concurrency, horizon: spec.horizon });
    stream.open(id);
    stream.line({ type: 'started', id, episodes });
    const gone = () => batch.cancel('the client closed the connection');
    // A client gone while its env was being opened cancels at once; later, when its socket closes.
    if (res.destroyed) gone();
    else res.once('close', () => res.writableFinished || gone());
    const end = await batch.done;
    parts.log('batch.ended', { id: spec.id, ok: end.ok, ...(end.ok ? {} : { message: end.message }) });
    const place = curriculum.place();
    // Only a batch whose every episode was scored feeds its run's curriculum.
    if (end.ok && place !== undefined) fed = place.ticket.finished(end.summary);
    const line = place !== undefined ? { curriculum: curriculumLine(place, fed) } : {};
    if (end.ok) stream.end({ type: 'done', summary: end.summary, horizon: spec.horizon, ...line });
    else stream.end({ type: 'error', message: end.message, ...(end.summary !== undefined ? { summary: end.summary } : {}) });
  } finally {
    if (!fed) curriculum.place()?.ticket.dropped();
    parts.batches.leave(id);
  }
}
