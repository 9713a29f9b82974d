/**
 * Issue 38: the verl bridge (bridges/verl/actorgym_agent_loop.py) plays BabyAI against a real
 * actorgym AgentGym HTTP server, with a scripted stand-in for verl's AsyncLLMServerManager and
 * stand-ins for the verl classes it imports (tests/bridges/verl-standin/, from verl b178a3cd).
 * The Python side (tests/bridges/verl-agent-loop-check.py) checks the AgentLoopOutput: the mask
 * marks only sampled ids, prompt+response ids equal the re-tokenized conversation, the reward is
 * the env's, num_turns counts as verl does. Here we check it ran and left no env instance behind.
 *
 * Runs where Python with transformers is importable: $ACTORGYM_PYTHON when set, else
 * /tmp/hfvenv/bin/python, else python3. Elsewhere it is skipped, saying why. verl is not needed.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { babyaiDefinition } from '../../envs/babyai/index.ts';
import { startAgentGymHttpServer, type AgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { findPython } from '../support/find-python.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHECK = path.join(HERE, 'verl-agent-loop-check.py');
const TOKENIZER = path.resolve(HERE, '../fixtures/hf/qwen2-tiny-chat');

const { python, reason } = findPython(['transformers']);
if (python === undefined) console.warn(`verl-agent-loop.test.ts skipped: ${reason}`);

describe.skipIf(python === undefined)('verl agent loop bridge on BabyAI', () => {
  let server: AgentGymHttpServer;
  beforeAll(async () => {
    // actorgym's own episode rules (as `serve --no-agentgym-compat`): a step's reward is what it earned.
    server = await startAgentGymHttpServer({ port: 0, definition: babyaiDefinition, agentgymCompat: false });
  });
  afterAll(async () => {
    await server.close();
  });

  it('returns verl AgentLoopOutputs with exact ids, env rewards and turns, and closes its env instances', async () => {
    const { stdout } = await promisify(execFile)(python!, ['-B', CHECK, server.url, TOKENIZER], { timeout: 60_000 }).catch((e: { stderr?: string; message: string }) => {
      throw new Error(`the Python check failed: ${e.stderr ?? e.message}`);
    });
    const measured = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, number>;
    expect(measured['turns']).toBe(6);
    expect(measured['reward']).toBeGreaterThan(0);
    expect(measured['model_tokens']).toBeGreaterThan(0);
    expect(measured['model_tokens']).toBeLessThan(measured['response_ids']!);
    expect(measured['truncated_turns']).toBe(4);
    // Each episode's instance was closed (the replays in the check close theirs too).
    expect(server.stats().instances).toBe(0);
  }, 90_000);
});
