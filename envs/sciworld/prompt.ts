/**
 * SciWorld: our words for AgentGym's ScienceWorld task (this env). The reset observation is
 * the task description and the first room; the env answers in ScienceWorld's words, with
 * "No known action matches that input." for text it cannot read and a numbered list when a
 * request could mean several things.
 */
import type { PromptOptions, PromptTemplate } from '../contract.ts';
import { formatThoughtAction, parseThoughtAction } from '../prompt/parse-reply.ts';
import { THOUGHT_ACTION_NOTES, thoughtActionContract } from '../prompt/reply-contract.ts';
import { createPromptTemplate } from '../prompt/template.ts';

export const SCIWORLD_INTRO = [
  'You are doing a science experiment in a simulated house with several rooms and an outside area. ' +
    'You will be given a task, such as measuring a melting point, testing whether something conducts electricity, mixing paints, or finding a living thing. ' +
    'Each turn shows the result of your last action.',
  '',
  'The actions (OBJ is an object or substance you can see, LOC a place):',
  '- look around: describe the room you are in.',
  '- look at OBJ, look in OBJ: describe an object, or what a container holds.',
  '- read OBJ: read a book or a note.',
  '- go to LOC: move to a neighbouring room through an open door, e.g. "go to kitchen".',
  '- open OBJ, close OBJ: open or close a door or a container.',
  '- pick up OBJ, put down OBJ: take an object into your inventory, or drop it here.',
  '- move OBJ to OBJ: put an object into or onto a container.',
  '- pour OBJ into OBJ: pour a liquid into a container. dunk OBJ into OBJ: dip a container into a liquid.',
  '- activate OBJ, deactivate OBJ: switch a device on or off, e.g. "activate stove".',
  '- use OBJ, use OBJ on OBJ: use a tool (e.g. "use thermometer on water").',
  '- connect OBJ to OBJ, disconnect OBJ: wire electrical parts, e.g. "connect battery anode to orange wire terminal 1".',
  '- mix OBJ: mix what a container holds. eat OBJ. flush OBJ.',
  '- focus on OBJ: declare the object the task is about. Focus only when the task tells you to: focusing on the wrong object ends the task as failed.',
  '- wait: let 10 time steps pass. wait1: let one pass.',
  '- inventory: list what you carry. task: repeat the task.',
  'When the game answers with a numbered list because your request was ambiguous, reply with the number of the one you meant as the action.',
  '',
  thoughtActionContract('The task is about the soap, and the thermometer I need is on the counter here, so I take it first.', 'pick up thermometer'),
  '',
  'Your task:',
].join('\n');

export function sciworldPrompt(options: PromptOptions = {}): PromptTemplate {
  return createPromptTemplate(
    {
      family: 'sciworld',
      intro: SCIWORLD_INTRO,
      notes: THOUGHT_ACTION_NOTES,
      // SciWorld names carry hyphens ("blue-green paint"), so AgentGym's character filter is not
      // applied; the env itself drops quotes, a final period and articles (parser.ts).
      parseReply: (reply) => parseThoughtAction(reply, 'plain'),
      formatReply: formatThoughtAction,
    },
    options,
  );
}
