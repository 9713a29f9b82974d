/**
 * BabyAI: our words for AgentGym's grid-world task (this env). The env's observations carry
 * the goal, the view and their own `Available actions: [...]` line, so this frame explains the
 * action grammar and leaves the current choices to them.
 */
import type { PromptOptions, PromptTemplate } from '../contract.ts';
import { formatThoughtAction, parseThoughtAction } from '../prompt/parse-reply.ts';
import { THOUGHT_ACTION_NOTES, thoughtActionContract } from '../prompt/reply-contract.ts';
import { createPromptTemplate } from '../prompt/template.ts';

export const BABYAI_INTRO = [
  'You control an agent in a small grid world of rooms that hold balls, boxes, keys and doors in six colours. ' +
    'You will be given a goal, such as going to an object, picking one up or opening a door. ' +
    'Each turn describes what you see from where you stand (in steps ahead of you and to your left or right) and what you carry, ' +
    'and ends with the list of actions you can take right now.',
  '',
  'The actions:',
  '- turn left, turn right: turn on the spot.',
  '- move forward: one step ahead.',
  '- go to <colour> <object> <n>: walk up to an object you can see, e.g. "go to red ball 1".',
  '- pickup <colour> <object> <n>: walk to an object and pick it up, e.g. "pickup grey key 1". You carry one object at most.',
  '- drop: put the object you carry down in front of you.',
  '- go through <colour> open door <n>: walk through an open door.',
  '- toggle and go through <colour> <closed or locked> door <n>: open the door and walk through it; a locked door needs a key of its colour in your hands.',
  '- toggle: open or close the door right in front of you.',
  '- check available actions: show the list again.',
  'Objects of the same colour and kind are told apart by their number. Choose from the current list; anything else is rejected.',
  '',
  thoughtActionContract('The red ball I have to reach is two steps ahead of me, so I walk up to it.', 'go to red ball 1'),
  '',
  'Your task:',
].join('\n');

export function babyaiPrompt(options: PromptOptions = {}): PromptTemplate {
  return createPromptTemplate(
    {
      family: 'babyai',
      intro: BABYAI_INTRO,
      notes: THOUGHT_ACTION_NOTES,
      parseReply: (reply) => parseThoughtAction(reply, 'agentgym-chars'),
      formatReply: formatThoughtAction,
    },
    options,
  );
}
