/**
 * An AgentTraj item back to a demo, by replaying it: the item names a task (`item_id`), each gpt
 * reply is read with the env family's reply parser (`EnvDefinition.prompt`, envs/<family>/prompt.ts), and a local instance of
 * the env, reset to that task, steps those actions. The demo's observations, action lists,
 * rewards and outcome are the replay's, so they are exact, and each human turn of the file is
 * checked against them: an item whose text does not show the replayed observation, or that goes
 * on after the episode ended, is an error naming the turn.
 */
import type { EnvDefinition } from '../envs/contract.ts';
import { promptFor } from '../envs/prompt/prompt-for.ts';
import { taskOfItemId, type AgentTrajItem, type AgentTrajMessage } from './agenttraj-item.ts';
import type { Demo, DemoTurn } from './demo.ts';

/** How a demo read from an item without our `actorgym` field is named. */
export const FOREIGN_AGENT = 'agenttraj';

interface Conversation {
  /** The human turn before each reply. */
  readonly observations: readonly string[];
  readonly replies: readonly string[];
  /** A human turn after the last reply (AgentGym's own rollouts end with one). */
  readonly final?: string;
}

/**
 * The demo `item` replays to in `definition`. `sample` names it when the item carries no
 * `actorgym` field (then the env is reset without a seed, as AgentGym's clients reset our
 * AgentGym HTTP endpoint, and the demo's seed is 0).
 */
export async function agentTrajToDemo(item: AgentTrajItem, definition: EnvDefinition, sample: number): Promise<Demo> {
  const { taskId, split } = taskOfItemId(definition, item.item_id, item.actorgym?.taskId);
  const prompt = promptFor(definition.spec.id);
  const conversation = splitConversation(item.conversations);
  const meta = item.actorgym;
  const env = definition.make();
  try {
    const reset = await env.reset(meta ? { taskId, seed: meta.seed } : { taskId });
    let observation = reset.observation;
    let listed = reset.info.availableActions;
    let outcome: Demo['outcome'] | undefined;
    let reward = 0;
    const turns: DemoTurn[] = [];
    for (const [k, reply] of conversation.replies.entries()) {
      if (outcome !== undefined) throw new Error(`reply ${k} comes after the replayed episode ended (${outcome} at turn ${k - 1})`);
      expectShown(conversation.observations[k] as string, observation, `turn ${k}`);
      const parsed = prompt.parseReply(reply);
      const action = parsed.ok ? parsed.action : parsed.envAction;
      const step = await env.step(action);
      turns.push({ observation, ...(listed !== undefined ? { availableActions: [...listed] } : {}), action, reward: step.reward });
      reward += step.reward;
      observation = step.observation;
      listed = step.info.availableActions;
      // As the episode machine settles a step (machines/episode.machine.ts).
      if (step.terminated) outcome = (step.info.success ?? step.reward > 0) ? 'success' : 'failure';
      else if (step.truncated) outcome = 'truncated';
    }
    if (conversation.final !== undefined) expectShown(conversation.final, observation, 'the last human turn');
    return {
      format: 'actorgym-demo', version: 1, env: definition.spec.id, split, taskId,
      sample: meta?.sample ?? sample,
      agent: meta?.agent ?? FOREIGN_AGENT,
      seed: meta?.seed ?? 0,
      episodeId: meta?.episodeId ?? `${item.item_id}#${sample}`,
      // Replies ran out before the env ended the episode: the horizon did.
      outcome: outcome ?? 'truncated',
      reward, turns, finalObservation: observation,
    };
  } finally {
    await env.close();
  }
}

/** Instruction and acknowledgement (a gpt turn with loss false) first, when present; then human/gpt pairs. */
function splitConversation(messages: readonly AgentTrajMessage[]): Conversation {
  const start = messages[0]?.from === 'human' && messages[1]?.from === 'gpt' && messages[1].loss === false ? 2 : 0;
  const observations: string[] = [];
  const replies: string[] = [];
  for (let i = start; i < messages.length; i += 2) {
    const human = messages[i] as AgentTrajMessage;
    const gpt = messages[i + 1];
    if (human.from !== 'human') throw new Error(`conversations[${i}] is a gpt turn where an observation (human) was expected`);
    if (gpt === undefined) return { observations, replies, final: human.value };
    if (gpt.from !== 'gpt') throw new Error(`conversations[${i + 1}] is a human turn where a reply (gpt) was expected`);
    observations.push(human.value);
    replies.push(gpt.value);
  }
  return { observations, replies };
}

/** The file's turn must show the replayed observation (around it: our framing, a note, a list). */
function expectShown(text: string, observation: string, where: string): void {
  const shown = squash(text);
  const observed = squash(observation);
  if (shown.includes(observed)) return;
  // The longest start of the observation the file does show: the difference is right after it.
  let lo = 0;
  let hi = observed.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (shown.includes(observed.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  const at = shown.indexOf(observed.slice(0, lo)) + lo;
  throw new Error(`${where} diverges from the replay: the file shows ${around(shown, at)} where replaying the actions in the env observes ${around(observed, lo)}`);
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function around(text: string, at: number): string {
  const from = Math.max(0, at - 40);
  const to = Math.min(text.length, at + 80);
  return JSON.stringify(`${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`);
}
