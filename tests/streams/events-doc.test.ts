/**
 * docs/events.md names every field of every event (issue 35: `horizon.changed`'s payload was
 * documented nowhere, so an app reached for `maxTurns`). The fields are read from the schemas
 * themselves, so an event that gains a field fails here until the doc says what it is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { EpisodeResultSchema, RolloutSummarySchema, RUN_EVENT_SCHEMAS } from '../../streams/events.ts';
import { LEARNER_EVENT_SCHEMAS } from '../../streams/training-events.ts';

const DOC = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/events.md'), 'utf8');

/** The text of the doc's `### heading` section, up to the next heading. */
function section(doc: string, heading: string): string | undefined {
  const start = doc.indexOf(`\n### ${heading}\n`);
  if (start === -1) return undefined;
  const next = doc.slice(start + 1).search(/\n##+ /);
  return next === -1 ? doc.slice(start) : doc.slice(start, start + 1 + next);
}

/** Payload fields of a shape the doc's section does not name as a table row (`| \`field\` |`). */
function undocumented(doc: string, heading: string, shape: z.ZodObject): string[] {
  const text = section(doc, heading);
  if (text === undefined) return [`(no section "### ${heading}")`];
  return Object.keys(shape.shape).filter((key) => key !== 'type' && key !== 't' && !text.includes(`| \`${key}\` |`));
}

describe('docs/events.md (issue 35)', () => {
  for (const schema of [...RUN_EVENT_SCHEMAS, ...LEARNER_EVENT_SCHEMAS]) {
    const type = schema.shape.type.value;
    it(`documents every field of ${type}`, () => {
      expect(undocumented(DOC, `\`${type}\``, schema)).toEqual([]);
    });
  }

  it('documents every field of the rollout summary and its per-slot results', () => {
    expect(undocumented(DOC, 'RolloutSummary', RolloutSummarySchema)).toEqual([]);
    expect(undocumented(DOC, 'EpisodeResult', EpisodeResultSchema)).toEqual([]);
  });

  it('documents the fields every event has', () => {
    expect(DOC).toContain('| `type` |');
    expect(DOC).toContain('| `t` |');
  });

  it('fails for a field the doc does not name, and for an event it has no section for', () => {
    const stripped = DOC.replace('| `reason` | string | why, in words (the schedule', '| reason? | string | why, in words (the schedule');
    const horizon = RUN_EVENT_SCHEMAS.find((schema) => schema.shape.type.value === 'horizon.changed')!;
    expect(undocumented(stripped, '`horizon.changed`', horizon)).toEqual(['reason']);
    expect(undocumented(DOC.replace('### `horizon.changed`', '### horizon'), '`horizon.changed`', horizon)).toEqual(['(no section "### `horizon.changed`")']);
  });
});
