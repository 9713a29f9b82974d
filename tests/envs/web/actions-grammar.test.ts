import { describe, expect, it } from 'vitest';
import { WEB_ACTION_GRAMMAR, extractWebAction, formatWebAction, parseWebAction, type WebAction } from '../../../envs/web/browser/grammar.ts';

const parsed = (text: string): WebAction => {
  const result = parseWebAction(text);
  if (!result.ok) throw new Error(`expected '${text}' to parse: ${result.error}`);
  return result.action;
};
const error = (text: string): string => {
  const result = parseWebAction(text);
  if (result.ok) throw new Error(`expected '${text}' to fail, got ${JSON.stringify(result.action)}`);
  return result.error;
};

describe('parseWebAction', () => {
  it('parses every action of the grammar', () => {
    expect(parsed('click [12]')).toEqual({ kind: 'click', id: '12' });
    expect(parsed('hover [7]')).toEqual({ kind: 'hover', id: '7' });
    expect(parsed('type [3] [red shoes] [0]')).toEqual({ kind: 'type', id: '3', text: 'red shoes', pressEnter: false });
    expect(parsed('type [3] [red shoes] [1]')).toEqual({ kind: 'type', id: '3', text: 'red shoes', pressEnter: true });
    expect(parsed('press [Control+a]')).toEqual({ kind: 'press', keys: 'Control+a' });
    expect(parsed('press [Enter]')).toEqual({ kind: 'press', keys: 'Enter' });
    expect(parsed('scroll [down]')).toEqual({ kind: 'scroll', direction: 'down' });
    expect(parsed('scroll [up]')).toEqual({ kind: 'scroll', direction: 'up' });
    expect(parsed('new_tab')).toEqual({ kind: 'new_tab' });
    expect(parsed('tab_focus [2]')).toEqual({ kind: 'tab_focus', index: 2 });
    expect(parsed('close_tab')).toEqual({ kind: 'close_tab' });
    expect(parsed('goto [http://127.0.0.1:3000/cart]')).toEqual({ kind: 'goto', url: 'http://127.0.0.1:3000/cart' });
    expect(parsed('go_back')).toEqual({ kind: 'go_back' });
    expect(parsed('go_forward')).toEqual({ kind: 'go_forward' });
    expect(parsed('stop [$42.10]')).toEqual({ kind: 'stop', answer: '$42.10' });
    expect(WEB_ACTION_GRAMMAR).toHaveLength(13);
  });

  it('follows WebArena on defaults and spacing', () => {
    // No Enter flag: Enter is pressed, as WebArena appends [1].
    expect(parsed('type [3] [shoes]')).toEqual({ kind: 'type', id: '3', text: 'shoes', pressEnter: true });
    // Content that looks like a flag is content when the flag is missing.
    expect(parsed('type [3] [1]')).toEqual({ kind: 'type', id: '3', text: '1', pressEnter: true });
    expect(parsed('type [3] [a [b] c] [0]')).toEqual({ kind: 'type', id: '3', text: 'a [b] c', pressEnter: false });
    expect(parsed('type [3] [] [0]')).toEqual({ kind: 'type', id: '3', text: '', pressEnter: false });
    expect(parsed('click[12]')).toEqual({ kind: 'click', id: '12' });
    expect(parsed('  click [12]  ')).toEqual({ kind: 'click', id: '12' });
    expect(parsed('scroll down')).toEqual({ kind: 'scroll', direction: 'down' });
    expect(parsed('scroll [DOWN]')).toEqual({ kind: 'scroll', direction: 'down' });
    expect(parsed('stop')).toEqual({ kind: 'stop', answer: '' });
    expect(parsed('stop []')).toEqual({ kind: 'stop', answer: '' });
    expect(parsed('stop [two\nlines]')).toEqual({ kind: 'stop', answer: 'two\nlines' });
  });

  it('rejects malformed actions with the expected form', () => {
    expect(error('click [abc]')).toBe("Invalid action 'click [abc]': expected 'click [id]'.");
    expect(error('click')).toContain("expected 'click [id]'");
    expect(error('click [1] [2]')).toContain("expected 'click [id]'");
    expect(error('hover []')).toContain("expected 'hover [id]'");
    expect(error('type [x] [shoes] [1]')).toContain("expected 'type [id] [content] [0|1]'");
    expect(error('type [3]')).toContain("expected 'type [id] [content] [0|1]'");
    expect(error('press []')).toContain("expected 'press [key_comb]'");
    expect(error('press Enter')).toContain("expected 'press [key_comb]'");
    expect(error('scroll [left]')).toContain("expected 'scroll [down|up]'");
    expect(error('tab_focus [one]')).toContain("expected 'tab_focus [tab_index]'");
    expect(error('tab_focus')).toContain("expected 'tab_focus [tab_index]'");
    expect(error('goto []')).toContain("expected 'goto [url]'");
    expect(error('new_tab [1]')).toContain("expected 'new_tab'");
    expect(error('close_tab now')).toContain("expected 'close_tab'");
    expect(error('go_back [1]')).toContain("expected 'go_back'");
    expect(error('go_forward please')).toContain("expected 'go_forward'");
    expect(error('stop the answer')).toContain("expected 'stop [answer]'");
  });

  it('names unknown and empty actions and lists the grammar', () => {
    expect(error('jump [3]')).toBe(`Unknown action 'jump'. Actions: ${WEB_ACTION_GRAMMAR.join(', ')}.`);
    expect(error('   ')).toContain('Empty action');
  });
});

describe('formatWebAction', () => {
  it('writes back what parses to the same action', () => {
    for (const text of ['click [1]', 'hover [2]', 'type [3] [x y] [0]', 'type [3] [x] [1]', 'press [Control+a]', 'scroll [up]', 'new_tab', 'tab_focus [0]', 'close_tab', 'goto [http://a/b]', 'go_back', 'go_forward', 'stop [yes]']) {
      expect(formatWebAction(parsed(text))).toBe(text);
    }
  });
});

describe('extractWebAction', () => {
  it('takes the first code block of a reply, else the whole reply', () => {
    expect(extractWebAction('Let me search. In summary, the next action I will perform is ```type [3] [shoes] [1]```')).toBe('type [3] [shoes] [1]');
    expect(extractWebAction('```\nclick [4]\n``` then ```click [5]```')).toBe('click [4]');
    expect(extractWebAction('  go_back \n')).toBe('go_back');
  });
});
