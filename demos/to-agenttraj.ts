/**
 * A demo as an AgentTraj item, in our own prompt's words (`EnvDefinition.prompt`, envs/<family>/prompt.ts): the family's
 * framing as the instruction, a short acknowledgement, then each observation as our LLM policy
 * shows it and each action as a reply the family's parser reads back to exactly that action.
 * Demos carry no reasoning, so every reply has an empty thought.
 */
import type { EnvDefinition } from '../envs/contract.ts';
import type { PromptTemplate } from '../envs/contract.ts';
import { promptFor } from '../envs/prompt/prompt-for.ts';
import { TURN_SEPARATOR } from '../envs/prompt/render-turns.ts';
import { itemIdOf, taskOfItemId, type AgentTrajItem, type AgentTrajMessage } from './agenttraj-item.ts';
import type { Demo } from './demo.ts';

/** The gpt turn after the instruction (AgentGym's has loss false: it is not trained on). */
export const AGENTTRAJ_ACKNOWLEDGEMENT = 'Understood. I will answer each turn in that form, with one action.';

// Our intros end by announcing the task that follows them; here the task comes after the acknowledgement.
const TASK_HEADING = `${TURN_SEPARATOR}Your task:`;

/** The instruction turn: the family's framing without the task. */
export function agentTrajInstruction(prompt: PromptTemplate): string {
  const intro = prompt.firstTurn('').slice(0, -TURN_SEPARATOR.length);
  return intro.endsWith(TASK_HEADING) ? intro.slice(0, -TASK_HEADING.length) : intro;
}

/**
 * The item of `demo`. A reply without a usable action (an LLM's format error, action `''`) gets
 * `loss: false`, so a trainer that honours the flag does not learn it, and the next observation
 * carries the note our LLM policy would have shown. Throws when an action would not read back.
 */
export function demoToAgentTraj(demo: Demo, definition: EnvDefinition): AgentTrajItem {
  if (demo.env !== definition.spec.id) throw new Error(`a demo of ${demo.env} cannot be written as an item of ${definition.spec.id}`);
  const prompt = promptFor(demo.env);
  const conversations: AgentTrajMessage[] = [
    { from: 'human', loss: null, value: agentTrajInstruction(prompt) },
    { from: 'gpt', loss: false, value: AGENTTRAJ_ACKNOWLEDGEMENT },
  ];
  let note: string | undefined;
  for (const [i, turn] of demo.turns.entries()) {
    conversations.push({ from: 'human', loss: null, value: prompt.nextTurn(turn.observation, turn.availableActions, note) });
    const reply = prompt.formatReply('', turn.action);
    const parsed = prompt.parseReply(reply);
    const readBack = parsed.ok ? parsed.action : parsed.envAction;
    if (readBack !== turn.action) {
      throw new Error(`turn ${i}: action ${JSON.stringify(turn.action)} reads back from a ${prompt.family} reply as ${JSON.stringify(readBack)}`);
    }
    note = parsed.ok ? undefined : parsed.message;
    conversations.push({ from: 'gpt', loss: parsed.ok, value: reply });
  }
  const itemId = itemIdOf(definition, demo.taskId);
  // The item id names AgentGym's task; keep ours beside it when that is another one.
  const named = taskOfItemId(definition, itemId).taskId;
  return {
    item_id: itemId,
    conversations,
    actorgym: { ...(named !== demo.taskId ? { taskId: demo.taskId } : {}), seed: demo.seed, sample: demo.sample, agent: demo.agent, episodeId: demo.episodeId },
  };
}
