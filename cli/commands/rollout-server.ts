/**
 * `actorgym rollout-server`: its options and help. What it does (the service with the token-exact
 * batch runner) is in rollout-server-action.ts, imported when the command runs.
 */
import type { Command } from 'commander';
import { addConnectionBudgetOptions, type ConnectionBudgetFlags } from '../connection-budget-options.ts';
import { nonNegativeInt, port, positiveInt } from '../output.ts';
import { DEFAULT_MAX_BATCHES, DEFAULT_MAX_CONCURRENCY, DEFAULT_ROLLOUT_DRAIN_MS, DEFAULT_ROLLOUT_MAX_BODY_BYTES } from '../../servers/rollout-server/limits.ts';

export interface RolloutServerCliOptions extends ConnectionBudgetFlags {
  port: number;
  host: string;
  token?: string;
  remote?: string;
  maxConcurrency: number;
  maxBatches: number;
  maxRetries: number;
  maxLostRetries: number;
  envTimeout: number;
  llmTimeout: number;
  llmRetries: number;
  allowOrigin: string[];
  drainTimeout: number;
  logJson?: boolean;
}

export function registerRolloutServer(program: Command): void {
  const command = program
    .command('rollout-server')
    .description('serve rollouts to a trainer over HTTP: POST /v1/rollouts runs a batch of tasks with a model behind an OpenAI-compatible endpoint and streams one token record per episode (docs/trainers.md)')
    .option('--port <port>', 'HTTP port (0 picks a free one)', port, 8300)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token <token>', 'require this bearer token on every route but /healthz and /readyz (or ACTORGYM_TOKEN); also sent to --remote env servers')
    .option('--remote <urls>', 'run the envs on `actorgym serve` env servers, one URL or several comma-separated (a reconnecting pool per env; an episode whose server is lost is retried on another)')
    .option('--max-concurrency <n>', 'episodes running at once in one batch, at most (a request asking more gets this many)', positiveInt('--max-concurrency'), DEFAULT_MAX_CONCURRENCY)
    .option('--max-batches <n>', 'batches running at once; more get 503 and /readyz says "at capacity"', positiveInt('--max-batches'), DEFAULT_MAX_BATCHES)
    .option('--max-retries <n>', 'retries of an episode aborted by infrastructure', nonNegativeInt('--max-retries'), 2)
    .option('--max-lost-retries <n>', 'with --remote: further retries of an episode whose env server was lost', nonNegativeInt('--max-lost-retries'), 10)
    .option('--env-timeout <ms>', 'deadline of each env call', positiveInt('--env-timeout'), 30_000)
    .option('--llm-timeout <s>', 'deadline of one LLM call attempt, seconds', positiveInt('--llm-timeout'), 120)
    .option('--llm-retries <n>', 'retries of a failed LLM call (with backoff) before the batch fails with "policy endpoint … unavailable"', nonNegativeInt('--llm-retries'), 4)
    .option('--allow-origin <origin>', 'a browser origin allowed to call the service (repeatable; `*` = any); programs send no Origin and always pass', (value: string, all: string[]) => [...all, value], [] as string[])
    .option('--drain-timeout <ms>', 'on SIGTERM/SIGINT, running batches get this long to finish before they are cancelled', positiveInt('--drain-timeout'), DEFAULT_ROLLOUT_DRAIN_MS)
    .option('--log-json', 'one JSON line per batch started and ended on stderr (and per connection refused or closed for the connection budget)');
  addConnectionBudgetOptions(command)
    .addHelpText('after', `
POST /v1/rollouts with a JSON body (docs/trainers.md, "The rollout service"):
  { "env": "babyai", "split": "train", "count": 8, "offset": 0, "groupSize": 4, "seed": 1,
    "horizon": 10, "concurrency": 32,
    "policy": { "baseUrl": "http://127.0.0.1:8000/v1", "model": "Qwen/Qwen2.5-0.5B-Instruct",
                "tokenizer": "hf:models/Qwen2.5-0.5B-Instruct", "temperature": 1, "maxTokens": 256 } }
  tasks: [ids] instead of count/offset; curriculum: { "schedule": "scaling:[6,13,20]@40", "step": 12 }
  instead of horizon (fixed: and scaling: only). tokenizer is a folder on this machine.
answers 200 application/x-ndjson, a line per event, header x-rollout-id:
  {"type":"started","id":"ro-…","episodes":32}
  {"type":"record","record":{…a token record, docs/token-records.md…}}   once per episode
  {"type":"done","summary":{…}}   or last   {"type":"error","message":"…"}
Closing the connection or DELETE /v1/rollouts/{id} cancels the batch. Bad bodies are 400
{"error":{"message","field"}}; bodies over ${DEFAULT_ROLLOUT_MAX_BODY_BYTES / 1024 / 1024} MiB 413.\n`)
    .action(async (options: RolloutServerCliOptions) => (await import('./rollout-server-action.ts')).runRolloutServer(options));
}
