/**
 * The Thought/Action reply contract every family but Deep Search asks for, in one wording, with
 * the format-error notes it can lead to.
 */
import { MULTIPLE_ACTIONS_MESSAGE, NO_ACTION_MESSAGE, formatThoughtAction } from './parse-reply.ts';

export const THOUGHT_ACTION_NOTES: readonly string[] = [NO_ACTION_MESSAGE, MULTIPLE_ACTIONS_MESSAGE];

/** The closing paragraph of a first turn: the reply form and one example reply. */
export function thoughtActionContract(exampleThought: string, exampleAction: string): string {
  return [
    'Reply to every turn in this form:',
    'Thought: <your reasoning; it may take several lines>',
    'Action: <exactly one action>',
    'Write "Action:" once per reply and nowhere else; the rest of that line is the action you take.',
    '',
    'Example reply:',
    formatThoughtAction(exampleThought, exampleAction),
  ].join('\n');
}
