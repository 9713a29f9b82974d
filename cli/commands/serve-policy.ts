/**
 * `actorgym serve-policy`: its options and help. What it does (loading the checkpoint or the
 * Hugging Face model with TensorFlow.js, the server) is in serve-policy-action.ts and
 * serve-policy-hf.ts, imported when the command runs.
 */
import { Option, type Command } from 'commander';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from '../../servers/policy-server/sessions.ts';
import { DEFAULT_DRAIN_MS, DEFAULT_MAX_BODY_BYTES } from '../../servers/policy-server/limits.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend-preference.ts';
import { addConnectionBudgetOptions, type ConnectionBudgetFlags } from '../connection-budget-options.ts';
import { port, positiveInt } from '../output.ts';
import { DEFAULT_HF_MAX_BATCH, DEFAULT_HF_MAX_QUEUE, DEFAULT_HF_MAX_TOKENS } from '../../servers/policy-server/hf/hf-defaults.ts';

export interface ServePolicyOptions extends ConnectionBudgetFlags {
  checkpoint?: string;
  /** `hf:DIR` or `checkpoint:DIR` (serve-policy-spec.ts). */
  policy?: string;
  adapter?: string;
  maxNewTokens?: number;
  port: number;
  host: string;
  token?: string;
  temperature?: number;
  maxSessions: number;
  backend: BackendPreference;
  allowOrigin: string[];
  drainTimeout: number;
  logJson?: boolean;
}

export function registerServePolicy(program: Command): void {
  const command = program
    .command('serve-policy')
    .description('serve a checkpoint or a Hugging Face model as an OpenAI-compatible chat model (GET /v1/models, POST /v1/chat/completions, streaming too; an hf:DIR model also POST /v1/completions with token-id prompts)')
    .option('--checkpoint <dir>', 'a run directory or its checkpoint/ directory')
    .option('--policy <spec>', 'instead of --checkpoint: hf:DIR, a Hugging Face model folder (config.json, *.safetensors, tokenizer.json, a chat template); checkpoint:DIR = --checkpoint DIR')
    .option('--adapter <dir>', 'with --policy hf:DIR: a peft LoRA adapter folder (adapter_config.json, adapter_model.safetensors) applied to the model')
    .option('--max-new-tokens <n>', `with --policy hf:DIR: completion tokens of a request that sends no max_tokens, and the most any request gets (a larger max_tokens is lowered to it); unset: ${DEFAULT_HF_MAX_TOKENS} by default, and only the model's context caps a request`, positiveInt('--max-new-tokens'))
    .option('--port <port>', 'HTTP port (0 picks a free one; 8000 is where --agent openai:MODEL looks by default)', port, 8000)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token <token>', 'require this bearer token (the client\'s API key) on every route (or ACTORGYM_TOKEN)')
    .option('--temperature <t>', 'temperature of requests that send none, 0 = greedy (default: the run\'s evaluation temperature; hf: 1)', (t) => {
      const value = Number(t);
      if (!(Number.isFinite(value) && value >= 0)) throw new Error(`--temperature must be a number ≥ 0, got "${t}"`);
      return value;
    })
    .option('--max-sessions <n>', 'checkpoint: conversations whose state is kept between requests (least recently used dropped first)', positiveInt('--max-sessions'), DEFAULT_MAX_SESSIONS)
    .option('--allow-origin <origin>', 'a browser origin allowed to call the server (repeatable; `*` = any); programs send no Origin and always pass', (value: string, all: string[]) => [...all, value], [] as string[])
    .option('--drain-timeout <ms>', 'on SIGTERM/SIGINT, running completions get this long to finish', positiveInt('--drain-timeout'), DEFAULT_DRAIN_MS)
    .option('--log-json', 'one JSON line on stderr per refused request (wrong or missing token, foreign Origin), tokens redacted')
    .addOption(new Option('--backend <backend>', 'tfjs backend').choices(BACKEND_PREFERENCES as string[]).default('auto'));
  addConnectionBudgetOptions(command)
    .addHelpText('after', `
--checkpoint: any model name is accepted in requests ("default" too). The conversation must be
the one actorgym's LLM policy sends for the checkpoint's env (--agent openai:default --base-url URL);
the request's seed is the episode's sampling seed. A conversation the server answered keeps its
context and KV cache until --max-sessions pushes it out or it idles ${DEFAULT_SESSION_IDLE_MS / 60_000} minutes; any other
conversation is rebuilt from its turns, with the same result.

--policy hf:DIR: the model is named hf:<folder name> (the folder name alone is accepted too;
another name is a 400). Any conversation is rendered with the model's own chat template and
answered with free text; max_tokens, stop, seed (same seed, same reply), temperature, top_p and
logprobs (top_logprobs 0) apply, and vLLM's return_token_ids adds prompt_token_ids and
choices[0].token_ids. Generation stops at generation_config.json's eos ids. A prompt plus
max_tokens over the model's context is a 400 naming the numbers. Requests arriving together are
decoded in one batch (at most ${DEFAULT_HF_MAX_BATCH}; ${DEFAULT_HF_MAX_QUEUE} may wait, beyond that 503 server_busy). See docs/hf-models.md.

Request bodies are limited to ${DEFAULT_MAX_BODY_BYTES / 1024 / 1024} MiB; errors use OpenAI's shape { error: { message, type, param, code } }.`)
    .action(async (options: ServePolicyOptions) => (await import('./serve-policy-action.ts')).runServePolicy(options));
}
