/**
 * Issue 35: an env brings its own prompt on its definition (`EnvDefinition.prompt`), and the LLM
 * policy frames the task and reads replies with it; an env that brings none gets the generic
 * Thought/Action prompt. The env here is an app's own, registered nowhere.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRolloutSystem } from '../../../actors/rollout-system.ts';
import type { Env, EnvDefinition, EnvSpec, ParsedReply, StepResult } from '../../../envs/contract.ts';
import { GENERIC_INTRO } from '../../../envs/prompt/generic.ts';
import { createPromptTemplate } from '../../../envs/prompt/template.ts';
import { createLlmPolicy } from '../../../policy/llm/create-llm-policy.ts';
import { startFaultServer, type FaultServer, type SeenRequest } from '../../../bench/chat-fault-server.ts';

const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const spec: EnvSpec = { id: 'buttons', description: 'press the green button', defaultHorizon: 3, splits: { train: 1, test: 1 }, maxReward: 1 };

/** Pressing `green` wins; anything else is an invalid action. */
class ButtonsEnv implements Env {
  readonly spec = spec;
  readonly actions: string[] = [];
  async reset() {
    return { observation: 'A red and a green button.', info: {} };
  }
  async step(action: string): Promise<StepResult> {
    this.actions.push(action);
    const won = action === 'green';
    return { observation: won ? 'Done.' : `Nothing happens: "${action}".`, reward: won ? 1 : 0, terminated: won, truncated: false, info: won ? { success: true } : { invalidAction: true } };
  }
  async close() {}
}

const INTRO = 'You stand before buttons. Reply PRESS <colour>.\n\nYour task:';
const NO_PRESS = 'Format error: write PRESS <colour>.';

/** The app's reply rule: the word after PRESS, lower-cased. */
function parsePress(reply: string): ParsedReply {
  const colour = /PRESS (\w+)/.exec(reply)?.[1];
  return colour === undefined ? { ok: false, error: 'no_action', message: NO_PRESS, envAction: '' } : { ok: true, action: colour.toLowerCase() };
}

function buttons(withPrompt: boolean): { definition: EnvDefinition; envs: ButtonsEnv[] } {
  const envs: ButtonsEnv[] = [];
  const definition: EnvDefinition = {
    spec,
    tasks: (split) => [`buttons_${split}_0`],
    make: () => {
      const env = new ButtonsEnv();
      envs.push(env);
      return env;
    },
    ...(withPrompt
      ? {
          prompt: (options) =>
            createPromptTemplate({ family: 'buttons', intro: INTRO, notes: [NO_PRESS], parseReply: parsePress, formatReply: (_t, a) => `PRESS ${a}` }, options),
        }
      : {}),
  };
  return { definition, envs };
}

function firstUser(request: SeenRequest): string {
  return (request.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'user')?.content ?? '';
}

async function playOnce(definition: EnvDefinition, reply: string) {
  const server = await startFaultServer({ content: () => reply });
  servers.push(server);
  const agent = createLlmPolicy({ model: 'test-model', env: definition, baseURL: server.baseURL, retries: 0, timeoutMs: 2_000 });
  const summary = await createRolloutSystem({ env: definition, agent, split: 'test', episodes: 1, concurrency: 1, schedule: 'fixed:2', seed: 1 }).run();
  await agent.close();
  return { summary, requests: server.requests.filter((r) => r.method === 'POST') };
}

describe("an env's own prompt (issue 35)", () => {
  it('frames the first turn with the env definition’s prompt and reads replies by its rules', async () => {
    const { definition, envs } = buttons(true);
    const { summary, requests } = await playOnce(definition, 'I like green. PRESS Green');
    expect(firstUser(requests[0]!)).toBe(`${INTRO}\n\nA red and a green button.`);
    // The env's parser, not Thought/Action: "PRESS Green" is the action "green", which wins.
    expect(envs.flatMap((e) => e.actions)).toEqual(['green']);
    expect(summary.outcomes.success).toBe(1);
  });

  it('gets the generic Thought/Action prompt when the env brings none', async () => {
    const { definition, envs } = buttons(false);
    const { summary, requests } = await playOnce(definition, 'Thought: green wins.\nAction: green');
    expect(firstUser(requests[0]!)).toBe(`${GENERIC_INTRO}\n\nA red and a green button.`);
    expect(envs.flatMap((e) => e.actions)).toEqual(['green']);
    expect(summary.outcomes.success).toBe(1);
  });

  it('refuses an env id where a definition belongs (the pre-issue-35 form would lose the prompt)', () => {
    expect(() => createLlmPolicy({ model: 'm', env: 'babyai' as unknown as EnvDefinition })).toThrow(/env definition/);
  });
});
