/**
 * Reply parsing against AgentGym's rules (agentenv/agentenv/envs/babyai.py, textcraft.py: every
 * `Action:` counts, the action is the rest of its line past any whitespace; SearchQA's
 * env_wrapper.py: the first complete <search>/<answer> tag), on AgentGym-shaped replies. Issue 23.
 */
import { describe, expect, it } from 'vitest';
import { getEnv } from '../../../envs/index.ts';
import type { ParsedReply } from '../../../envs/contract.ts';
import { MULTIPLE_ACTIONS_MESSAGE, NO_ACTION_MESSAGE, parseThoughtAction } from '../../../envs/prompt/parse-reply.ts';
import { NO_TAG_MESSAGE, parseTagReply } from '../../../envs/prompt/parse-tags.ts';
import { promptFor } from '../../../envs/prompt/prompt-for.ts';

const ok = (action: string): ParsedReply => ({ ok: true, action });

describe('Thought/Action replies (BabyAI, TextCraft: AgentGym character filter)', () => {
  const parse = (reply: string) => parseThoughtAction(reply, 'agentgym-chars');

  it('reads the action after a multi-line thought, in AgentGym\'s own "Action:\\n<action>" layout', () => {
    const reply = 'Thought:\nThe red ball is ahead of me.\nI should walk to it.\n\nAction:\ngo to red ball 1';
    expect(parse(reply)).toEqual(ok('go to red ball 1'));
  });

  it('takes the rest of the marker\'s line only, trimmed, with spaces collapsed', () => {
    expect(parse('Thought: go.\nAction:    move   forward   \nObservation: you moved')).toEqual(ok('move forward'));
    expect(parse('Thought: go.\nAction: move forward   ')).toEqual(ok('move forward'));
  });

  it('drops what AgentGym\'s filter drops: quotes, backticks, periods, markdown emphasis', () => {
    expect(parse('Thought: t\nAction: "go to red ball 1".')).toEqual(ok('go to red ball 1'));
    expect(parse('Thought: t\n**Action:** `pickup grey key 1`')).toEqual(ok('pickup grey key 1'));
    expect(parse('Thought: t\nAction: craft 4 oak planks using 1 oak log')).toEqual(ok('craft 4 oak planks using 1 oak log'));
    expect(parse('Thought: t\nAction: craft 1 golden carrot using 8 gold nugget, 1 carrot')).toEqual(ok('craft 1 golden carrot using 8 gold nugget, 1 carrot'));
  });

  it('cuts end-of-sequence markers before filtering (AgentGym\'s filter alone would read "forwards")', () => {
    expect(parse('Thought: t\nAction: move forward</s>')).toEqual(ok('move forward'));
    expect(parse('Thought: t\nAction: move forward<|im_end|>\n')).toEqual(ok('move forward'));
  });

  it('reads an action written inside a code fence on the lines after the marker', () => {
    expect(parse('Thought: t\nAction:\n```\nturn left\n```')).toEqual(ok('turn left'));
    expect(parse('Thought: t\nAction:\n```text\n\ntoggle\n```')).toEqual(ok('toggle'));
    expect(parse('Thought: t\nAction:\n```\n```')).toMatchObject({ ok: false, error: 'no_action' });
  });

  it('two Action: lines are a multiple_actions error, whatever they say', () => {
    const reply = 'Thought: t\nAction: turn left\nThought: no\nAction: turn right';
    expect(parse(reply)).toEqual({ ok: false, error: 'multiple_actions', message: MULTIPLE_ACTIONS_MESSAGE, envAction: '' });
    expect(parse('Action: turn left\nAction: turn left')).toMatchObject({ ok: false, error: 'multiple_actions' });
  });

  it('an "Action:" inside the thought counts too, as in AgentGym (one findall over the whole reply)', () => {
    const reply = 'Thought: I will write Action: go to the ball below.\nAction: go to red ball 1';
    expect(parse(reply)).toMatchObject({ ok: false, error: 'multiple_actions' });
  });

  it('no Action: at all, or a marker with nothing after it, is a no_action error', () => {
    expect(parse('Thought: I am not sure what to do.')).toEqual({ ok: false, error: 'no_action', message: NO_ACTION_MESSAGE, envAction: '' });
    expect(parse('Thought: t\nAction:')).toMatchObject({ ok: false, error: 'no_action' });
    expect(parse('Thought: t\nAction: ...')).toMatchObject({ ok: false, error: 'no_action' });
    // The marker is case-sensitive, as AgentGym's regex is.
    expect(parse('Thought: t\naction: turn left')).toMatchObject({ ok: false, error: 'no_action' });
    expect(parse('Thought: t\nACTION: turn left')).toMatchObject({ ok: false, error: 'no_action' });
  });
});

describe('Thought/Action replies (SciWorld, generic: plain cleanup)', () => {
  const parse = (reply: string) => parseThoughtAction(reply, 'plain');

  it('keeps hyphens and other characters the names carry', () => {
    expect(parse('Thought: mix them\nAction: move blue-green paint to cup')).toEqual(ok('move blue-green paint to cup'));
    expect(parse('Thought: t\nAction:\nwait1')).toEqual(ok('wait1'));
  });

  it('unwraps quotes, backticks and emphasis around the action', () => {
    expect(parse('Thought: t\nAction: "look around"')).toEqual(ok('look around'));
    expect(parse('Thought: t\nAction: `open door to kitchen`')).toEqual(ok('open door to kitchen'));
    expect(parse('Thought: t\n**Action:** go to hallway')).toEqual(ok('go to hallway'));
    expect(parse('Thought: t\nAction: **focus on soap**</s>')).toEqual(ok('focus on soap'));
  });

  it('applies the same counting rules', () => {
    expect(parse('Thought: t\nAction: look around\nAction: wait')).toMatchObject({ ok: false, error: 'multiple_actions' });
    expect(parse('I will look around.')).toMatchObject({ ok: false, error: 'no_action' });
  });
});

describe('Deep Search replies: the first <search> or <answer> tag', () => {
  it('takes the search after the thinking, written in the env\'s own form', () => {
    const reply = '<think>I need the capital of Eritrea first.\nThen its currency.</think>\n<search> capital of Eritrea </search>';
    expect(parseTagReply(reply)).toEqual(ok('<search> capital of Eritrea </search>'));
    expect(parseTagReply('<think>t</think><search>\ncapital\nof Eritrea\n</search>')).toEqual(ok('<search> capital\nof Eritrea </search>'));
  });

  it('an answer before a search wins: only the first tag counts', () => {
    expect(parseTagReply('<think>t</think><answer>Nakfa</answer><search>currency</search>')).toEqual(ok('<answer> Nakfa </answer>'));
    expect(parseTagReply('<search>q1</search> and then <search>q2</search>')).toEqual(ok('<search> q1 </search>'));
  });

  it('a tag left open is skipped for the next complete one; a nested tag stays inside its parent', () => {
    expect(parseTagReply('<search>never closed <answer>Asmara</answer>')).toEqual(ok('<answer> Asmara </answer>'));
    expect(parseTagReply('<search>outer <answer>inner</answer> text</search>')).toEqual(ok('<search> outer <answer>inner</answer> text </search>'));
    expect(parseTagReply('<search>mismatched</answer>')).toMatchObject({ ok: false, error: 'no_tag' });
  });

  it('no tag at all is a no_tag error; Thought/Action is not read here', () => {
    expect(parseTagReply('<think>I know it.</think> The answer is Nakfa.')).toEqual({ ok: false, error: 'no_tag', message: NO_TAG_MESSAGE, envAction: '' });
    expect(parseTagReply('Thought: t\nAction: search Eritrea')).toMatchObject({ ok: false, error: 'no_tag' });
  });

  it('the action it hands over is parsed by the search env to the same search', async () => {
    const def = getEnv('search');
    const env = def.make();
    await env.reset({ taskId: def.tasks('test')[0]!, seed: 0 });
    const parsed = parseTagReply('<think>t</think><search>\n  Asmara capital  \n</search> <answer>x</answer>');
    expect(parsed.ok).toBe(true);
    const step = await env.step(parsed.ok ? parsed.action : '');
    expect(step.info['action']).toBe('search');
    expect(step.observation.startsWith('<information>')).toBe(true);
    await env.close();
  });
});

describe('formatReply round-trips through parseReply', () => {
  it.each(['babyai', 'textcraft', 'sciworld', 'generic-env'])('%s: Thought/Action, even with a marker or line breaks in the thought', (id) => {
    const prompt = promptFor(id);
    for (const action of ['go to red ball 1', 'craft 4 oak planks using 1 oak log', 'inventory']) {
      expect(prompt.parseReply(prompt.formatReply('A plan.\nAction: not this one.', action))).toEqual(ok(action));
    }
    expect(prompt.formatReply('t', 'turn left')).toBe('Thought: t\nAction: turn left');
  });

  it('search: think then the tag, with tags in the thought neutralised', () => {
    const prompt = promptFor('search');
    const action = '<search> capital of Eritrea </search>';
    expect(prompt.parseReply(prompt.formatReply('maybe <answer>x</answer>', action))).toEqual(ok(action));
    expect(prompt.formatReply('t', action)).toBe('<think> t </think>\n<search> capital of Eritrea </search>');
  });
});

describe('envAction of a format error is an invalid action in our envs', () => {
  const replies = { babyai: 'no marker here', textcraft: 'Action: a\nAction: b', sciworld: 'Thought: only thinking', search: 'no tag' } as const;

  it.each(Object.keys(replies) as (keyof typeof replies)[])('%s rejects it as invalid, without an exception, and the episode goes on', async (id) => {
    const def = getEnv(id);
    const prompt = promptFor(id);
    const parsed = prompt.parseReply(replies[id]);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    for (const taskId of def.tasks('test').slice(0, 3)) {
      const env = def.make();
      await env.reset({ taskId, seed: 0 });
      for (let i = 0; i < 2; i++) {
        const step = await env.step(parsed.envAction);
        expect(step.info.invalidAction).toBe(true);
        expect(step.terminated).toBe(false);
        expect(step.reward).toBe(0);
      }
      await env.close();
    }
  });
});
