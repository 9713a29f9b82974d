/**
 * What `--agent` accepts, in one list: every command's option and `--help` are generated from
 * `AGENT_SPECS`, and `resolveAgent` turns the text into what the rollout system takes. The heavy
 * parts (TensorFlow.js for a checkpoint or a Hugging Face model, the OpenAI client) load only when
 * such an agent is asked for.
 */
import { InvalidArgumentError } from 'commander';
import type { AgentSpec } from '../actors/rollout-system.ts';
import type { CallEnded, LlmUsage } from '../policy/llm/chat-types.ts';
import type { BackendPreference } from '../policy/backend-preference.ts';
import type { HfAgentOptions, LlmAgentOptions } from './llm-options.ts';

export interface AgentSpecForm {
  /** As typed after --agent; DIR and MODEL are placeholders. */
  readonly form: string;
  readonly description: string;
}

/** Every agent `--agent` accepts. Add a form here and to `resolveAgent`; the help follows. */
export const AGENT_SPECS: readonly AgentSpecForm[] = [
  { form: 'random', description: "picks uniformly among the env's available actions" },
  { form: 'oracle', description: "the env's scripted solver (envs that have one: `actorgym envs --json`, field oracle)" },
  { form: 'checkpoint:DIR', description: 'a trained agent: a run directory (`train --out`, `sft --out`) or its checkpoint/, our transformer or a Hugging Face model' },
  { form: 'openai:MODEL', description: 'a chat model behind an OpenAI-compatible endpoint (--base-url; `actorgym serve-policy` serves a checkpoint as one)' },
  { form: 'hf:DIR', description: 'a Hugging Face model folder (Qwen2/Qwen2.5, Qwen3, Llama 3: config.json, safetensors, tokenizer.json, chat template) run here on TF.js; --adapter DIR adds a peft LoRA adapter' },
];

/** "random, oracle, checkpoint:DIR, openai:MODEL, hf:DIR", for error messages. */
export const AGENT_FORMS = AGENT_SPECS.map((spec) => spec.form).join(', ');

/** The `--agent` option's description. */
export const agentOptionDescription = (): string => `who acts: ${AGENT_SPECS.map((spec) => spec.form).join(' | ')} (listed below)`;

/** The agents block every command with `--agent` appends to its `--help`. */
export function agentHelpText(): string {
  const width = Math.max(...AGENT_SPECS.map((spec) => spec.form.length));
  return `\nAgents (--agent):\n${AGENT_SPECS.map((spec) => `  ${spec.form.padEnd(width)}  ${spec.description}`).join('\n')}\n`;
}

/** Checks the form of `--agent` as the command line is parsed, before anything loads. */
export function parseAgentSpec(text: string): string {
  const known = AGENT_SPECS.some(({ form }) => (form.includes(':') ? text.startsWith(form.slice(0, form.indexOf(':') + 1)) : text === form));
  if (!known) throw new InvalidArgumentError(`unknown agent "${text}"; known agents: ${AGENT_FORMS}`);
  return text;
}

export interface ResolveContext {
  /** The env the agent acts in (chooses an LLM's prompt). */
  readonly env?: string;
  readonly llm?: LlmAgentOptions;
  /** An hf:DIR agent's adapter and sampling (`--adapter`, `--max-new-tokens`, `--top-p`; `--top-p` also goes to a token-exact openai: agent). */
  readonly hf?: HfAgentOptions;
  readonly backend?: BackendPreference;
  /** A checkpoint or hf: agent's sampling temperature (checkpoint default: the run's evaluation temperature; hf: 1). */
  readonly temperature?: number;
}

export interface ResolvedAgent {
  readonly spec: AgentSpec;
  /** As summaries name it: `random`, `checkpoint@60`, `openai:MODEL`. */
  readonly name: string;
  /** An LLM agent's run-wide calls, tokens, retries and latency. */
  readonly usage?: () => LlmUsage;
  /**
   * The episode-level deadline of one decision. An LLM call enforces its own per-attempt deadline
   * and retries; this backstop only catches a policy that never answers.
   */
  readonly agentTimeoutMs?: number;
  /**
   * Calls `stop` at the first error no retry can cure (an LLM endpoint that rejects the request,
   * a replay that diverges from its recording); after the run, `fatalError()` is that error.
   */
  readonly watchFatal?: (stop: (error: Error) => void) => void;
  readonly fatalError?: () => Error | undefined;
  /** An openai: chat agent's calls as each ends, keyed by episode (an evaluation keeps them with each episode, so totals survive a crash). */
  readonly watchCalls?: (listener: (call: CallEnded) => void) => void;
  /** The policy hands back each episode's token ids on release (checkpoint:, hf:, openai: with --tokenizer): what `--format tokens` writes. */
  readonly keepsTokens?: boolean;
  /** A checkpoint's or hf: model's tfjs backend. */
  readonly backend?: string;
  /** The env a checkpoint was trained on. */
  readonly env?: string;
  dispose(): Promise<void>;
}

/**
 * Turns `--agent` into what the rollout system takes. `checkpoint:DIR` loads a trained agent
 * (a run directory or its checkpoint/), on the best available tfjs backend; `openai:MODEL` is a
 * chat model behind an OpenAI-compatible endpoint (cli/llm-options.ts); `hf:DIR` a Hugging Face
 * model folder run here (policy/hf/agent/).
 */
export async function resolveAgent(text: string, context: ResolveContext = {}): Promise<ResolvedAgent> {
  if (context.hf?.adapter !== undefined && !text.startsWith('hf:')) {
    throw new Error(`--adapter ${context.hf.adapter} is a LoRA adapter of a Hugging Face model: it needs --agent hf:DIR, not --agent ${text}`);
  }
  if (context.llm?.tokenizer !== undefined && !text.startsWith('openai:')) {
    throw new Error(`--tokenizer makes an openai:MODEL agent token-exact; --agent ${text} keeps its own tokens (hf:DIR and checkpoint:DIR already do)`);
  }
  if (context.llm?.route !== undefined && context.llm.tokenizer === undefined) throw new Error('--token-route needs --tokenizer hf:DIR');
  if (context.hf?.topP !== undefined && text.startsWith('openai:') && context.llm?.tokenizer === undefined) {
    throw new Error(`--top-p is sent by a token-exact openai:MODEL agent (with --tokenizer hf:DIR); the chat client of --agent ${text} sends no top_p`);
  }
  if (text === 'random' || text === 'oracle') return { spec: text, name: text, dispose: async () => {} };
  if (text.startsWith('hf:')) return resolveHfAgent(text.slice('hf:'.length), context);
  if (text.startsWith('checkpoint:')) {
    const dir = text.slice('checkpoint:'.length);
    if (dir === '') throw new Error('checkpoint agent needs a directory: --agent checkpoint:DIR');
    const { checkpointKind } = await import('../learner/checkpoint/read.ts');
    if ((await checkpointKind(dir)) === 'hf') return resolveHfCheckpointAgent(dir, context);
    const { loadCheckpointAgent } = await import('../learner/checkpoint/checkpoint-agent.ts');
    const agent = await loadCheckpointAgent(dir, {
      ...(context.backend ? { backend: context.backend } : {}),
      ...(context.temperature !== undefined ? { temperature: context.temperature } : {}),
    });
    return {
      spec: agent.policy,
      name: agent.policy.name,
      backend: agent.backend,
      env: agent.config.env,
      keepsTokens: true,
      dispose: async () => agent.dispose(),
    };
  }
  if (text.startsWith('openai:')) {
    const model = text.slice('openai:'.length);
    if (model === '') throw new Error('an LLM agent needs a model name: --agent openai:MODEL (e.g. openai:default for `actorgym serve-policy`)');
    if (context.env === undefined) throw new Error('an openai: agent needs --env (its prompt depends on the env)');
    const { tokenizer, route, ...llm } = context.llm ?? {};
    const [{ createLlmPolicy }, { createTokenLlmPolicy }, { promptFor }] = await Promise.all([
      import('../policy/llm/create-llm-policy.ts'), import('../policy/llm/create-token-llm-policy.ts'), import('../envs/prompt/prompt-for.ts'),
    ]);
    const envId = context.env;
    const env = { prompt: (options?: Parameters<typeof promptFor>[1]) => promptFor(envId, options) };
    const chat = tokenizer === undefined ? createLlmPolicy({ model, env, ...llm }) : undefined;
    const agent = chat ?? createTokenLlmPolicy({ model, env, ...llm, tokenizer: tokenizer!, ...(route !== undefined ? { route } : {}), ...(context.hf?.topP !== undefined ? { topP: context.hf.topP } : {}) });
    const attemptMs = llm.timeoutMs ?? 120_000;
    const attempts = (llm.retries ?? 4) + 1;
    return {
      spec: agent,
      name: agent.name,
      usage: () => agent.usage(),
      watchFatal: (stop) => {
        agent.onFatal = stop;
      },
      fatalError: () => agent.fatalError,
      ...(chat !== undefined ? { watchCalls: (listener: (call: CallEnded) => void) => { chat.onCallEnded = listener; } } : {}),
      // Every attempt, the longest backoffs, and time queued behind the concurrency limit.
      agentTimeoutMs: attempts * (attemptMs + 30_000) + 3_600_000,
      ...(tokenizer !== undefined ? { keepsTokens: true } : {}),
      dispose: () => agent.close(),
    };
  }
  throw new Error(`unknown agent "${text}"; known agents: ${AGENT_FORMS}`);
}

/**
 * `hf:DIR`: the model folder (and `--adapter`) loaded as an HfPolicy with the env's prompt. The
 * decision deadline is a backstop only: a CPU model decodes a batch of long prompts in minutes.
 */
async function resolveHfAgent(dir: string, context: ResolveContext, from?: { readonly tokenizer?: string; readonly adapter?: string }): Promise<ResolvedAgent> {
  if (dir === '') throw new Error('an hf agent needs a model folder: --agent hf:DIR');
  if (context.env === undefined) throw new Error('an hf: agent needs --env (its prompt depends on the env)');
  const [{ loadHfPolicy }, { promptFor }] = await Promise.all([import('../policy/hf/agent/load-hf-policy.ts'), import('../envs/prompt/prompt-for.ts')]);
  const envId = context.env;
  const hf = context.hf ?? {};
  const loaded = await loadHfPolicy(
    { dir, ...(hf.adapter !== undefined ? { adapter: hf.adapter } : {}), ...from },
    {
      env: { prompt: (options) => promptFor(envId, options) },
      ...(context.llm?.listActions ? { promptOptions: { listActions: true } } : {}),
      ...(context.backend ? { backend: context.backend } : {}),
      ...(context.temperature !== undefined ? { temperature: context.temperature } : {}),
      ...(hf.topP !== undefined ? { topP: hf.topP } : {}),
      ...(hf.maxNewTokens !== undefined ? { maxNewTokens: hf.maxNewTokens } : {}),
    },
  );
  return {
    spec: loaded.policy,
    name: loaded.policy.name,
    backend: loaded.backend,
    usage: () => loaded.policy.usage(),
    agentTimeoutMs: 1_800_000,
    keepsTokens: true,
    dispose: async () => loaded.dispose(),
  };
}

/**
 * `checkpoint:DIR` of a Hugging Face run (`train`/`sft --policy hf:…`): its base model with the
 * trained adapter (LoRA), or its trained weights with the base folder's tokenizer (full), sampling
 * as the run did unless the command says otherwise; the env defaults to the run's.
 */
async function resolveHfCheckpointAgent(location: string, context: ResolveContext): Promise<ResolvedAgent> {
  const [{ readFile }, { locateCheckpoint }] = await Promise.all([import('node:fs/promises'), import('../learner/checkpoint/read.ts')]);
  const dir = await locateCheckpoint(location);
  const state = JSON.parse(await readFile(`${dir}/state.json`, 'utf8')) as {
    hf: { base: string; mode: 'lora' | 'full' };
    config: { env: string; hf?: { maxNewTokens?: number; topP?: number } };
  };
  const { adapter, ...given } = context.hf ?? {};
  if (adapter !== undefined) throw new Error('--adapter is for --agent hf:DIR; a checkpoint brings its own adapter');
  const run = state.config.hf ?? {};
  const hf = { ...(run.maxNewTokens !== undefined ? { maxNewTokens: run.maxNewTokens } : {}), ...(run.topP !== undefined ? { topP: run.topP } : {}), ...given };
  const env = context.env ?? state.config.env;
  const resolved = state.hf.mode === 'lora'
    ? await resolveHfAgent(state.hf.base, { ...context, env, hf }, { adapter: dir })
    : await resolveHfAgent(dir, { ...context, env, hf }, { tokenizer: state.hf.base });
  return { ...resolved, env: state.config.env };
}
