/**
 * TextCraft: our words for AgentGym's Minecraft crafting task (this env). The reset
 * observation lists the recipes and the goal; the env answers `Got …`, `Crafted …`,
 * `Inventory: …` or `Could not …`.
 */
import type { PromptOptions, PromptTemplate } from '../contract.ts';
import { formatThoughtAction, parseThoughtAction } from '../prompt/parse-reply.ts';
import { THOUGHT_ACTION_NOTES, thoughtActionContract } from '../prompt/reply-contract.ts';
import { createPromptTemplate } from '../prompt/template.ts';

export const TEXTCRAFT_INTRO = [
  'You are crafting in a Minecraft-like game. You will be shown the crafting recipes you may use and one item to make. ' +
    'Base materials can be fetched in any amount; everything else has to be crafted from its ingredients. ' +
    'Each turn shows the result of your last action.',
  '',
  'The actions:',
  '- get <amount> <item>: fetch a base material, e.g. "get 1 lapis lazuli". Items that have a recipe cannot be fetched.',
  '- craft <amount> <item> using <amount> <ingredient>, <amount> <ingredient>, ...: follow one of the shown recipes, with the amounts it names, ' +
    'e.g. "craft 1 blue dye using 1 lapis lazuli" or "craft 1 golden carrot using 8 gold nugget, 1 carrot".',
  '- inventory: list what you hold.',
  'Always write the amounts. Only the shown recipes work. Where a recipe names a general ingredient such as "planks", ' +
    'any specific kind of it (such as "birch planks") will do.',
  '',
  thoughtActionContract('To craft blue dye I first need lapis lazuli, which can be fetched.', 'get 1 lapis lazuli'),
  '',
  'Your task:',
].join('\n');

export function textcraftPrompt(options: PromptOptions = {}): PromptTemplate {
  return createPromptTemplate(
    {
      family: 'textcraft',
      intro: TEXTCRAFT_INTRO,
      notes: THOUGHT_ACTION_NOTES,
      parseReply: (reply) => parseThoughtAction(reply, 'agentgym-chars'),
      formatReply: formatThoughtAction,
    },
    options,
  );
}
