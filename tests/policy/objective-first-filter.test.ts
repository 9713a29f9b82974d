// The web env's objective comes after the page tree; `objective-first` brings it to the front
// so the beginning of an observation a small context keeps holds the task (issue 27, training).
import { describe, expect, it } from 'vitest';
import { formatWebObservation } from '../../envs/web/browser/observation.ts';
import { filterObservation, parseObservationFilter } from '../../policy/observation-filter.ts';

const page = {
  tree: "[1] RootWebArea 'Corner Market'\n\t[7] link 'Lamps'\n\t[9] searchbox 'Search'",
  url: 'http://127.0.0.1:4000/',
  title: 'Corner Market',
  tabs: [{ index: 0, title: 'Corner Market', current: true }],
  truncated: false,
};

describe('objective-first observation filter', () => {
  it('moves objective, previous action and URL before the page and drops the header', () => {
    const text = formatWebObservation(page, 'What is the price of the\nBrass Lamp?', 'click [7]');
    expect(filterObservation('objective-first', text)).toBe(
      'OBJECTIVE: What is the price of the\nBrass Lamp?\nPREVIOUS ACTION: click [7]\nURL: http://127.0.0.1:4000/\n' +
        `Tab 0 (current): Corner Market\n\n${page.tree}`,
    );
  });

  it('keeps an action error, now after the objective', () => {
    const text = formatWebObservation(page, 'Find lamps', 'click [99]', 'There is no element [99] on this page.');
    const seen = filterObservation('objective-first', text);
    expect(seen.startsWith('OBJECTIVE: Find lamps\nPREVIOUS ACTION: click [99]\n')).toBe(true);
    expect(seen).toContain('There is no element [99] on this page.\n\nTab 0 (current)');
  });

  it('leaves other envs\' text as no-action-list does, and parses by name', () => {
    const babyai = 'You see a wall.\nAvailable actions: ["turn left", "turn right"]';
    expect(filterObservation('objective-first', babyai)).toBe('You see a wall.');
    expect(filterObservation('full', formatWebObservation(page, 'x'))).toBe(formatWebObservation(page, 'x'));
    expect(parseObservationFilter('objective-first')).toBe('objective-first');
    expect(() => parseObservationFilter('objective-last')).toThrow(/objective-first/);
  });
});
