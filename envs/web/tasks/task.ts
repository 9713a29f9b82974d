/**
 * What a web task is, as data: the objective an agent reads, the site and page it starts on, the
 * evaluator spec that scores its episode (WebArena's three kinds: an answer, the final URL, or
 * the site's database afterwards), and the oracle plan, a list of high-level steps in terms of
 * visible page text that an oracle maps onto the action grammar through the accessibility tree.
 * Everything here is JSON, so tasks can be listed, logged and sent over the wire.
 */
import type { Split } from '../../contract.ts';
import type { SiteName } from '../site-urls.ts';
import type { Vocabulary } from './vocabularies.ts';

/** `infeasible`: asks for what the sites do not have; the right answer is `N/A` (WebArena's convention). */
export type WebTaskKind = 'info' | 'nav' | 'state' | 'infeasible';
export const WEB_TASK_KINDS: readonly WebTaskKind[] = ['info', 'nav', 'state', 'infeasible'];

/**
 * The answer given with `stop [answer]`. WebArena's three string matches, and typed matches that
 * read ONE value of a kind out of the answer and fail an answer stating several (answer-match.ts,
 * docs/envs/web-evaluators.md).
 */
export type AnswerEvaluator =
  /** The whole answer equals `expected` (case, whitespace, quotes and a final period ignored); e.g. `N/A`. */
  | { readonly type: 'exact_match'; readonly expected: string }
  /** WebArena's must_include: the answer contains every string of `expected`. Accepts enumerations: the bundled templates do not use it. */
  | { readonly type: 'must_include'; readonly expected: readonly string[] }
  /** Free text graded by the LLM judge when one is given (WebArena's fuzzy_match); without one, the answer must be `expected` word for word. */
  | { readonly type: 'fuzzy_match'; readonly expected: string }
  /** One number (money, `$`, `USD`, thousands commas, `out of 5` allowed) within `tolerance` of `expected`. */
  | { readonly type: 'number'; readonly expected: number; readonly tolerance: number }
  /** One calendar date, in any format normalise.ts reads, equal to `expected` (`YYYY-MM-DD`). */
  | { readonly type: 'date'; readonly expected: string }
  /** One id shaped like `expected` (`OFF-1330`, `000000007`), equal to it ignoring case and separators. */
  | { readonly type: 'id'; readonly expected: string }
  /** One name among `among` (a vocabulary of the seeded sites, or a list), equal to `expected` ignoring case and punctuation. */
  | { readonly type: 'name'; readonly expected: string; readonly among: Vocabulary | readonly string[] };

/**
 * The final URL's path equals `path`, each of `query` is present with that value, and every other
 * parameter is one that does not change what the page shows (`done`), is at its default
 * (`page=1`), or is listed in `ignoreQuery`; the host is ignored.
 */
export interface UrlEvaluator {
  readonly type: 'url_match';
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  /** Parameters that may take any value (e.g. `sort` when any order of the listing will do). */
  readonly ignoreQuery?: readonly string[];
}

/** An order's shipping address, as the checkout form's fields. */
export interface ShippingAddress {
  readonly ship_name: string;
  readonly street: string;
  readonly city: string;
  readonly region: string;
  readonly postcode: string;
}

/**
 * A check on the instance's database of the task's site after the episode. Ids `after*` are the
 * largest of the seeded state, so only rows the episode wrote count. Every check also fails on an
 * effect the task did not ask for (db-check.ts, site-effects.ts): a state task changes one thing.
 */
export type DbEvaluator =
  /** Exactly one new order: these items and no others, this shipping method, shipped to `shipTo` (default: the customer's default address). */
  | { readonly type: 'db'; readonly check: 'order'; readonly afterOrderId: number; readonly items: readonly { readonly productId: number; readonly quantity: number }[]; readonly shippingMethod: string; readonly shipTo?: ShippingAddress }
  /** Exactly one new review: of this product, with this rating, summary (`title`) and text (`body`). */
  | { readonly type: 'db'; readonly check: 'review'; readonly afterReviewId: number; readonly productId: number; readonly rating: number; readonly title: string; readonly body: string }
  /** The cart holds exactly this product in this quantity, and nothing else. */
  | { readonly type: 'db'; readonly check: 'cart'; readonly productId: number; readonly quantity: number }
  /** The user's votes differ from the seeded ones on this post only, by this vote. */
  | { readonly type: 'db'; readonly check: 'vote'; readonly postId: number; readonly value: 1 | -1 }
  /** Exactly one new post: in this forum, with this title and body. */
  | { readonly type: 'db'; readonly check: 'post'; readonly afterPostId: number; readonly forum: string; readonly title: string; readonly body: string }
  /** Exactly one new comment: on this post (not a reply to a comment), with this text. */
  | { readonly type: 'db'; readonly check: 'comment'; readonly afterCommentId: number; readonly postId: number; readonly body: string };

export type WebEvaluator = AnswerEvaluator | UrlEvaluator | DbEvaluator;

/**
 * One step of an oracle plan. Names are accessible names as the accessibility tree shows them
 * (a link's text, a button's text or aria-label, an input's label), matched exactly.
 */
export type WebPlanStep =
  /** Open a path of the task's site, or of `site` when given (`goto [base + path]`). */
  | { readonly goto: string; readonly site?: SiteName }
  /** Click the link with this name. */
  | { readonly clickLink: string }
  /** Click the button with this name (submits its form). */
  | { readonly clickButton: string }
  /** Type `value` into the text field or text area with this label (`type [id] [value] [0]`, replacing its text). */
  | { readonly fill: { readonly label: string; readonly value: string } }
  /** Choose the option with this label in the drop-down with this label (`type [id] [option]`). */
  | { readonly select: { readonly label: string; readonly option: string } }
  /** Click the radio button or checkbox with this label. */
  | { readonly check: string }
  /** End the episode with this answer (`stop [answer]`; empty for navigation and state-change tasks). */
  | { readonly stop: string };

export interface WebTask {
  /**
   * `${site}/${kind}/${template}/${n}`, e.g. `shop/info/cheapest-in-category/3`; a task across
   * both sites reads `multi/${kind}/${template}/${n}` (tasks/cross-site.ts).
   */
  readonly id: string;
  /** The site the episode starts on (and whose database a state task checks). */
  readonly site: SiteName;
  /**
   * Every site the task needs, the start site first; absent means `[site]` (`taskSites`). A
   * multi-site objective names the other site's address as `__SHOP__` / `__FORUM__`
   * (WebArena's placeholders), which the env fills in (tasks/objective-text.ts).
   */
  readonly sites?: readonly SiteName[];
  readonly kind: WebTaskKind;
  /** `${site}/${kind}` (`multi/${kind}` across sites), the evaluation category. */
  readonly category: string;
  readonly template: string;
  readonly split: Split;
  /** What the agent is asked, in plain English. */
  readonly objective: string;
  /** Path on the task's site where the episode starts. */
  readonly startPath: string;
  readonly evaluator: WebEvaluator;
  readonly plan: readonly WebPlanStep[];
}

/** What an episode left behind, for `evaluateWebTask`. */
export interface WebOutcome {
  /** The `stop [answer]` text, or undefined when the episode did not stop. */
  readonly answer?: string | undefined;
  /** The URL of the page the episode ended on (any host). */
  readonly finalUrl: string;
  /** Read-only queries on the instance's database of the task's site (needed by db evaluators). */
  readonly db?: { all(sql: string, ...params: unknown[]): unknown[]; get(sql: string, ...params: unknown[]): unknown } | undefined;
}

export interface WebVerdict {
  /** WebArena's binary reward. */
  readonly reward: 0 | 1;
  /** One line for logs: what was expected and what was found. */
  readonly reason: string;
  /** The LLM judge that graded the answer (`openai:MODEL`), when one did. */
  readonly judge?: string;
}

/** The fields a template fills in; the id, category and split are added by `makeTask`. */
export type TaskDraft = Omit<WebTask, 'id' | 'category' | 'split' | 'site' | 'kind' | 'template'>;

export function makeTask(site: SiteName, kind: WebTaskKind, template: string, n: number | string, split: Split, draft: TaskDraft): WebTask {
  return { id: `${site}/${kind}/${template}/${n}`, site, kind, category: `${site}/${kind}`, template, split, ...draft };
}

/** The sites a task needs: its `sites`, else its start site alone. */
export function taskSites(task: Pick<WebTask, 'site' | 'sites'>): readonly SiteName[] {
  return task.sites ?? [task.site];
}
