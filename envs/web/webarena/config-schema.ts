/**
 * WebArena's task config (`config_files/*.json`, or the array in `test.raw.json`) as a zod schema.
 * Only the fields the run and the evaluators read are checked; the rest (intent_template,
 * instantiation_dict, reference_action_sequence, …) pass through untouched. A config that
 * parses may still hold placeholders (`__SHOPPING__`); placeholders.ts resolves them.
 */
import { z } from 'zod';

/** The sites WebArena's configs name in `sites`. */
export const WEBARENA_SITES = ['shopping', 'shopping_admin', 'reddit', 'gitlab', 'wikipedia', 'map', 'homepage'] as const;
export type WebArenaSite = (typeof WEBARENA_SITES)[number];

export const WEBARENA_EVAL_TYPES = ['string_match', 'url_match', 'program_html'] as const;
export type WebArenaEvalType = (typeof WEBARENA_EVAL_TYPES)[number];

/** What a page must show: the whole text (exact_match), or every entry, each maybe `a |OR| b` (must_include). */
const requiredContents = z.union([
  z.strictObject({ exact_match: z.string() }),
  z.strictObject({ must_include: z.array(z.string()).min(1) }),
], { error: 'required_contents must be {"exact_match": string} or {"must_include": [string, …]}' });

const programHtmlTarget = z.looseObject({
  /** `last` (the page the agent ended on), a URL, or `func:helper(…)`. */
  url: z.string().min(1, 'url must be "last", a URL or func:…'),
  /** A JS expression (`document.…`, `[...document.…]`), `func:helper(…)`, or empty for the whole page's HTML. */
  locator: z.string(),
  /** JS statements run before the locator (errors ignored, as WebArena). */
  prep_actions: z.array(z.string()).optional(),
  required_contents: requiredContents,
});
export type ProgramHtmlTarget = z.infer<typeof programHtmlTarget>;

const referenceAnswers = z.strictObject({
  exact_match: z.string().optional(),
  must_include: z.array(z.string()).min(1).optional(),
  /** `N/A` (an unachievable task) or references an LLM judge compares the answer with. */
  fuzzy_match: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
});
export type ReferenceAnswers = z.infer<typeof referenceAnswers>;

const evalSpec = z
  .looseObject({
    eval_types: z.array(z.enum(WEBARENA_EVAL_TYPES)).min(1),
    reference_answers: referenceAnswers.nullable().optional(),
    /** One URL, or several joined by ` |OR| `. */
    reference_url: z.string().nullable().optional(),
    url_note: z.literal('GOLD in PRED', { error: 'url_note: WebArena defines only "GOLD in PRED"' }).optional(),
    program_html: z.array(programHtmlTarget).optional(),
    /** Why an unachievable task is so (fuzzy_match N/A with a judge). */
    string_note: z.string().nullable().optional(),
  })
  .superRefine((spec, ctx) => {
    const types = new Set(spec.eval_types);
    const answers = spec.reference_answers;
    if (types.has('string_match') && (!answers || Object.keys(answers).length === 0)) {
      ctx.addIssue({ code: 'custom', path: ['reference_answers'], message: 'string_match needs reference_answers with exact_match, must_include or fuzzy_match' });
    }
    if (types.has('url_match') && !spec.reference_url?.trim()) {
      ctx.addIssue({ code: 'custom', path: ['reference_url'], message: 'url_match needs a reference_url' });
    }
    if (types.has('program_html') && (spec.program_html ?? []).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['program_html'], message: 'program_html needs at least one {url, locator, required_contents}' });
    }
  });

export const webArenaConfigSchema = z.looseObject({
  task_id: z.number().int().nonnegative(),
  sites: z.array(z.enum(WEBARENA_SITES)).min(1),
  /** One URL, or several joined by ` |AND| ` (each opens a tab; the first is current). */
  start_url: z.string().min(1),
  intent: z.string().min(1),
  require_login: z.boolean().optional(),
  /** A Playwright storage-state file (cookies) WebArena's auto_login.py writes, e.g. `./.auth/shopping_state.json`. */
  storage_state: z.string().nullable().optional(),
  intent_template_id: z.number().int().optional(),
  eval: evalSpec,
});
export type WebArenaConfig = z.infer<typeof webArenaConfigSchema>;

/** A zod error as `field: message; field: message`, the field written as `eval.program_html[0].url`. */
export function describeConfigError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), '');
      return `${field || '(config)'}: ${issue.message}`;
    })
    .join('; ');
}
