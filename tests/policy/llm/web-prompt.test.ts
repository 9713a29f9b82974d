/**
 * Issue 27: the web prompt after WebArena's CoT prompt. Turns are laid out around the env's
 * observation verbatim and read back exactly; a reply's action is its first ``` block, and a reply
 * without one is a format error (the env gets an action it rejects: the agent's failure); past
 * turns are sent condensed, and the policy server still reads the conversation.
 */
import { describe, expect, it } from 'vitest';
import { readConversation } from '../../../servers/policy-server/conversation.ts';
import { WEB_ACTION_GRAMMAR, parseWebAction } from '../../../envs/web/browser/grammar.ts';
import { formatWebObservation, type WebObservation } from '../../../envs/web/browser/observation.ts';
import type { ChatMessage } from '../../../policy/llm/chat-types.ts';
import { condensePast } from '../../../policy/llm/history.ts';
import { promptFor } from '../../../envs/prompt/prompt-for.ts';
import { WEB_ANSWER_PHRASE, WEB_INTRO, WEB_NO_ACTION_MESSAGE, condenseWebObservation } from '../../../envs/web/prompt.ts';

const OBJECTIVE = 'What is the price of "Pure Fern Portable Face Cream, Navy" in the shop?';

function page(url: string, title: string, lines: readonly string[]): WebObservation {
  return {
    tree: [`[2] RootWebArea '${title}' focused: True`, ...lines.map((l) => `\t${l}`)].join('\n'),
    url,
    title,
    tabs: [{ index: 0, title, current: true }],
    truncated: false,
  };
}

const home = page('http://127.0.0.1:4000/', 'Home | Corner Market', ["[4] searchbox 'Search products'", "[24] button 'Search'", "[31] link 'Electronics'"]);
const results = page('http://127.0.0.1:4000/search?q=Pure+Fern', "Search results for 'Pure Fern' | Corner Market", ["[213] link 'Pure Fern Portable Face Cream, Navy'", "[229] StaticText ' — $75.99 — '"]);
const product = page('http://127.0.0.1:4000/product/197', 'Pure Fern Portable Face Cream, Navy | Corner Market', ["[351] StaticText 'Price: '", "[352] StaticText '$75.99'"]);

const obs0 = formatWebObservation(home, OBJECTIVE);
const obs1 = formatWebObservation(results, OBJECTIVE, 'type [4] [Pure Fern Portable Face Cream, Navy] [1]');
const obs2 = formatWebObservation(results, OBJECTIVE, '', 'Empty action. Actions: click [id], …');
const obs3 = formatWebObservation(product, OBJECTIVE, 'click [213]');

const reply = (thought: string, action: string) => `Let's think step by step. ${thought} ${WEB_ANSWER_PHRASE} \`\`\`${action}\`\`\``;

describe('web prompt (issue 27)', () => {
  const prompt = promptFor('web');

  it('is chosen for web and for AgentGym\'s webarena, with no system message', () => {
    expect(prompt.family).toBe('web');
    expect(promptFor('webarena').family).toBe('web');
    expect(promptFor('WebArena').family).toBe('web');
    expect(prompt.system).toBeUndefined();
  });

  it('first turn: the action list, the reply contract and two examples, then the reset observation verbatim', () => {
    const text = prompt.firstTurn(obs0);
    expect(text.startsWith(WEB_INTRO)).toBe(true);
    expect(text.endsWith(`Your task:\n\n${obs0}`)).toBe(true);
    for (const action of WEB_ACTION_GRAMMAR) expect(text).toMatch(new RegExp(`\\n- ${action.replace(/[[\]|]/g, '\\$&')}: \\S`));
    expect(text).toContain(`"${WEB_ANSWER_PHRASE}" followed by the action inside \`\`\``);
    // The examples' replies are in the contract, and their actions are in the env's grammar.
    const examples = [...WEB_INTRO.matchAll(/\nReply:\n([^\n]+)/g)].map((m) => m[1]!);
    expect(examples).toHaveLength(2);
    for (const example of examples) {
      const parsed = prompt.parseReply(example);
      expect(parsed.ok && parseWebAction(parsed.action).ok).toBe(true);
    }
    expect(prompt.readTurn(text, true)).toEqual({ observation: obs0 });
    // A first turn it did not frame is not read as one.
    expect(prompt.readTurn(obs0, true)).toBeUndefined();
    expect(prompt.readTurn(promptFor('babyai').firstTurn(obs0), true)).toBeUndefined();
  });

  it('later turns: the observation verbatim, after the format note when there is one; readTurn strips it', () => {
    expect(prompt.nextTurn(obs1)).toBe(obs1);
    expect(prompt.readTurn(obs1, false)).toEqual({ observation: obs1 });
    const noted = prompt.nextTurn(obs2, undefined, WEB_NO_ACTION_MESSAGE);
    expect(noted).toBe(`${WEB_NO_ACTION_MESSAGE}\n\n${obs2}`);
    expect(prompt.readTurn(noted, false)).toEqual({ observation: obs2 });
    // The web env lists no actions, so --list-actions adds nothing.
    expect(promptFor('web', { listActions: true }).nextTurn(obs1)).toBe(obs1);
  });

  it('parses the action from the first ``` block of a reply, as WebArena does', () => {
    expect(prompt.parseReply(reply('There is a search box [4].', 'type [4] [Pure Fern Portable Face Cream, Navy] [1]'))).toEqual({
      ok: true,
      action: 'type [4] [Pure Fern Portable Face Cream, Navy] [1]',
    });
    expect(prompt.parseReply('I found it.\n```\nstop [$75.99]\n```')).toEqual({ ok: true, action: 'stop [$75.99]' });
    expect(prompt.parseReply('```text\nclick [213]\n``` and later ```click [9]```')).toEqual({ ok: true, action: 'click [213]' });
    // formatReply writes the contract; a fence inside the thought cannot become the action.
    expect(prompt.formatReply('no ```goto [x]``` here', 'scroll [down]')).toMatch(new RegExp(`${WEB_ANSWER_PHRASE} \`\`\`scroll \\[down\\]\`\`\`$`));
    expect(prompt.parseReply(prompt.formatReply('no ```goto [x]``` here', 'scroll [down]'))).toEqual({ ok: true, action: 'scroll [down]' });
  });

  it('a reply with no action block is a format error: the env gets an action it rejects (a turn spent, not an abort)', () => {
    for (const bad of ['Let me click the search box: click [4]', 'In summary, the next action I will perform is click [4]', 'Answer: ``` ```', '```click [4]', '']) {
      const parsed = prompt.parseReply(bad);
      expect(parsed).toEqual({ ok: false, error: 'no_action', message: WEB_NO_ACTION_MESSAGE, envAction: '' });
      // What the env receives is an invalid action with a message, never a throw.
      const inEnv = parseWebAction(parsed.ok ? parsed.action : parsed.envAction);
      expect(inEnv.ok).toBe(false);
    }
  });

  it('past turns are sent condensed: each past page as its tabs and URL, each past reply as its action; the newest page whole', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: prompt.firstTurn(obs0) },
      { role: 'assistant', content: reply('There is a search box [4].', 'type [4] [Pure Fern Portable Face Cream, Navy] [1]') },
      { role: 'user', content: prompt.nextTurn(obs1) },
      { role: 'assistant', content: 'I should click the product, [213].' },
      { role: 'user', content: prompt.nextTurn(obs2, undefined, WEB_NO_ACTION_MESSAGE) },
      { role: 'assistant', content: reply('This is the product.', 'click [213]') },
      { role: 'user', content: prompt.nextTurn(obs3) },
    ];
    const sent = condensePast(messages, prompt.condensePast!);
    expect(sent.map((m) => m.role)).toEqual(messages.map((m) => m.role));
    expect(sent[0]!.content).toBe(`${WEB_INTRO}\n\nOBSERVATION (page omitted):\nTab 0 (current): Home | Corner Market\nURL: http://127.0.0.1:4000/`);
    expect(sent[1]!.content).toBe(`${WEB_ANSWER_PHRASE} \`\`\`type [4] [Pure Fern Portable Face Cream, Navy] [1]\`\`\``);
    expect(sent[2]!.content).toBe("OBSERVATION (page omitted):\nTab 0 (current): Search results for 'Pure Fern' | Corner Market\nURL: http://127.0.0.1:4000/search?q=Pure+Fern");
    // A reply that named no action stays (it is short); the env's message and the format note stay with the page.
    expect(sent[3]!.content).toBe(messages[3]!.content);
    expect(sent[4]!.content).toBe(
      `${WEB_NO_ACTION_MESSAGE}\n\nOBSERVATION (page omitted):\nEmpty action. Actions: click [id], …\nTab 0 (current): Search results for 'Pure Fern' | Corner Market\nURL: http://127.0.0.1:4000/search?q=Pure+Fern`,
    );
    expect(sent[6]).toEqual(messages[6]);
    const chars = (ms: readonly ChatMessage[]) => ms.reduce((n, m) => n + m.content.length, 0);
    expect(chars(sent)).toBeLessThan(WEB_INTRO.length + obs3.length + 1200);
    // Only the newest page's tree is sent.
    expect(sent.slice(0, 6).some((m) => m.content.includes("[4] searchbox 'Search products'") || m.content.includes("[213] link"))).toBe(false);
    // A long reply without an action is cut.
    const long = condensePast([messages[0]!, { role: 'assistant', content: 'x'.repeat(5000) }, messages[2]!], prompt.condensePast!);
    expect(long[1]!.content.length).toBeLessThan(420);
  });

  it('the policy server reads the condensed conversation: the past actions, and the newest observation whole', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: prompt.firstTurn(obs0) },
      { role: 'assistant', content: reply('Search.', 'type [4] [Pure Fern Portable Face Cream, Navy] [1]') },
      { role: 'user', content: prompt.nextTurn(obs1) },
      { role: 'assistant', content: 'no block' },
      { role: 'user', content: prompt.nextTurn(obs3, undefined, WEB_NO_ACTION_MESSAGE) },
    ];
    const view = readConversation(condensePast(messages, prompt.condensePast!), prompt, 'web');
    expect(view.turn).toBe(2);
    expect(view.past.map((t) => t.action)).toEqual(['type [4] [Pure Fern Portable Face Cream, Navy] [1]', '']);
    expect(view.past[0]!.observation).toBe(condenseWebObservation(obs0));
    expect(view.latest).toEqual({ observation: obs3 });
    // Sent whole, it reads the full pages.
    expect(readConversation(messages, prompt, 'web').past[1]!.observation).toBe(obs1);
  });

  it('condensePast leaves system messages and the newest user turn alone, and templates without rules send turns verbatim', () => {
    const rules = { user: (t: string, first: boolean) => `${first ? 'F' : 'U'}(${t.length})`, assistant: (t: string) => `A(${t.length})` };
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'u0' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'u1' },
    ];
    expect(condensePast(messages, rules).map((m) => m.content)).toEqual(['sys', 'F(2)', 'A(2)', 'u1']);
    expect(condensePast(messages.slice(0, 2), rules).map((m) => m.content)).toEqual(['sys', 'u0']);
    for (const id of ['babyai', 'textcraft', 'sciworld', 'search', 'unknown-env']) expect(promptFor(id).condensePast).toBeUndefined();
  });

  it('a text not in WebArena\'s layout is kept whole when condensed', () => {
    expect(condenseWebObservation('The episode has ended.')).toBe('The episode has ended.');
    expect(condenseWebObservation(obs3)).toBe('OBSERVATION (page omitted):\nTab 0 (current): Pure Fern Portable Face Cream, Navy | Corner Market\nURL: http://127.0.0.1:4000/product/197');
  });
});
