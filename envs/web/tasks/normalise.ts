/**
 * Reading one answer of a known kind out of free text: the normalisers the answer evaluators
 * use (answer-match.ts), exported for any template. Each `extract*` returns every distinct value
 * of its kind the text states, so an evaluator can refuse an answer that states several (an
 * enumeration); each `answer*` returns the value when there is exactly one. Rules and examples:
 * docs/envs/web-evaluators.md.
 */

/** Lower case, one space between words, no surrounding quotes or final period (WebArena's clean_answer, a little wider). */
export function normalizeAnswer(text: string): string {
  let s = text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  // Quotes and a final period in either order: `"Red."` and `"Red".` are both `red`.
  for (let i = 0; i < 2; i++) s = s.replace(/[.。]$/, '').trim().replace(/^["'“‘`]+|["'”’`]+$/g, '').trim();
  return s;
}

// ---- numbers and money -------------------------------------------------------------------

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];

/**
 * Every distinct number the text states. Currency marks (`$`, `USD`), thousands commas and
 * words around a number are fine; a scale after it (`out of 5`, `/5`) is not a second number.
 * A number glued to letters (`lynx76`, `OFF-1330`) is part of a name, not a number. Number words
 * (zero…twenty) count only when the text has no digits.
 */
export function extractNumbers(text: string): number[] {
  const s = text.normalize('NFKC')
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1')
    .replace(/\b(?:usd|us\$)(?=\s*\d)/gi, ' ')
    .replace(/(\d(?:\.\d+)?)\s*(?:out of|\/)\s*\d+(?:\.\d+)?/gi, '$1');
  // Not after a letter, digit, `_` or `.`, nor after a `-` glued to a letter (`OFF-1330`); `3-5` is two numbers.
  const found = [...s.matchAll(/(?<![\p{L}\p{N}_.])(?<![\p{L}_]-)-?\d+(?:\.\d+)?(?![\p{L}\p{N}_])/gu)].map((m) => Number(m[0]));
  if (found.length === 0 && !/\d/.test(s)) {
    for (const m of s.toLowerCase().matchAll(/[a-z]+/g)) {
      const n = NUMBER_WORDS.indexOf(m[0]);
      if (n >= 0) found.push(n);
    }
  }
  return [...new Set(found.map((n) => (Object.is(n, -0) ? 0 : n)))];
}

/** The one number the text states, or undefined when it states none or several different ones. */
export function answerNumber(text: string): number | undefined {
  const found = extractNumbers(text);
  return found.length === 1 ? found[0] : undefined;
}

// ---- dates -------------------------------------------------------------------------------

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const ORDINAL = '(?:st|nd|rd|th)?';

/** `YYYY-MM-DD` of a real calendar day, or undefined. */
function isoOf(year: number, month: number, day: number): string | undefined {
  const at = new Date(Date.UTC(year, month - 1, day));
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) return undefined;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const monthOf = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;

/** The date formats read, each to (year, month, day); the first that matches a span takes it. */
const DATE_FORMATS: readonly (readonly [RegExp, (m: RegExpExecArray) => [number, number, number]])[] = [
  // 2023-04-17, 2023/04/17, 2023.04.17 (a time after it is fine)
  [/(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g, (m) => [Number(m[1]), Number(m[2]), Number(m[3])]],
  // 04/17/2023 (US, month first); 17/04/2023 when the first number cannot be a month
  [/(?<!\d)(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?!\d)/g, (m) => {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return a > 12 ? [Number(m[3]), b, a] : [Number(m[3]), a, b];
  }],
  // April 17, 2023 / Apr. 17 2023 / April 17th, 2023
  [new RegExp(`\\b${MONTH}\\s+(\\d{1,2})${ORDINAL},?\\s+(\\d{4})(?!\\d)`, 'gi'), (m) => [Number(m[3]), monthOf(m[1] as string), Number(m[2])]],
  // 17 April 2023 / 17th of Apr 2023 / 17 Apr, 2023
  [new RegExp(`(?<!\\d)(\\d{1,2})${ORDINAL}\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})(?!\\d)`, 'gi'), (m) => [Number(m[3]), monthOf(m[2] as string), Number(m[1])]],
];

/**
 * Every distinct calendar date the text states, as `YYYY-MM-DD`: ISO (`2023-04-17`), US numeric
 * (`04/17/2023`; day first only when the first number is over 12), and with a month name
 * (`April 17, 2023`, `17 Apr 2023`). A year or a month alone is not a date.
 */
export function extractDates(text: string): string[] {
  let rest = text.normalize('NFKC');
  const found: string[] = [];
  for (const [pattern, parts] of DATE_FORMATS) {
    rest = rest.replace(pattern, (...args) => {
      const m = args.slice(0, -2) as unknown as RegExpExecArray;
      const iso = isoOf(...parts(m));
      if (iso) found.push(iso);
      return ' ';
    });
  }
  return [...new Set(found)];
}

/** The one date the text states, `YYYY-MM-DD`, or undefined for none or several. */
export function answerDate(text: string): string | undefined {
  const found = extractDates(text);
  return found.length === 1 ? found[0] : undefined;
}

// ---- ids (SKUs, order numbers) ------------------------------------------------------------

/** An id with only its letters and digits, upper case: `off-1330` and `OFF 1330` are `OFF1330`. */
export function canonicalId(id: string): string {
  return id.normalize('NFKC').replace(/[^\p{L}\p{N}]/gu, '').toUpperCase();
}

/**
 * Every distinct id in the text shaped like `like` (the same runs of letters and digits, any of
 * `-`, `_`, a space or nothing between them), canonical. `SKU: OFF-1330` holds one id shaped like
 * `ELE-1025`; `000000007` is shaped like `000000022`.
 */
export function extractIds(text: string, like: string): string[] {
  const runs = like.normalize('NFKC').match(/\p{L}+|\p{N}+/gu) ?? [];
  if (runs.length === 0) return [];
  const body = runs.map((r) => (/\p{N}/u.test(r) ? `\\d{${r.length}}` : `\\p{L}{${r.length}}`)).join('[-_ ]?');
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'gu');
  return [...new Set([...text.normalize('NFKC').matchAll(pattern)].map((m) => canonicalId(m[0])))];
}

/** The one id shaped like `like` that the text states, canonical, or undefined for none or several. */
export function answerId(text: string, like: string): string | undefined {
  const found = extractIds(text, like);
  return found.length === 1 ? found[0] : undefined;
}

// ---- names (products, brands, usernames, titles) ------------------------------------------

/**
 * A name as a key for comparison: lower case, every character that is not a letter, digit, `_`
 * or `&` a space. `Album of the week: Luna Park` and `album of the week luna park` are one key.
 */
export function nameKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}_&]+/gu, ' ').trim();
}

/**
 * The distinct names of `names` that the text mentions, each as a whole run of words: longest
 * first, and a span taken by one name is not searched again (so `Kettle, Green` inside
 * `Oakmere Premium Kettle, Green` is not a second mention). Returned as spelled in `names`.
 */
export function findNames(text: string, names: readonly string[]): string[] {
  let rest = ` ${nameKey(text)} `;
  const byKey = new Map<string, string>();
  for (const name of names) {
    const key = nameKey(name);
    if (key !== '' && !byKey.has(key)) byKey.set(key, name);
  }
  const found: string[] = [];
  for (const key of [...byKey.keys()].sort((a, b) => b.length - a.length)) {
    const needle = ` ${key} `;
    if (!rest.includes(needle)) continue;
    found.push(byKey.get(key) as string);
    rest = rest.split(needle).join(' | ');
  }
  return found;
}

/** The one name of `names` the text mentions, or undefined for none or several. */
export function answerName(text: string, names: readonly string[]): string | undefined {
  const found = findNames(text, names);
  return found.length === 1 ? found[0] : undefined;
}

// ---- free text and N/A --------------------------------------------------------------------

/**
 * Text written into a form (a review, a comment, a post) as compared with the text a task asks
 * for: case, runs of spaces, surrounding quotes and a final period do not matter; words do.
 */
export function sameText(a: string, b: string): boolean {
  return normalizeAnswer(a) === normalizeAnswer(b);
}

/** Whether the answer says the task cannot be done: WebArena's `N/A` (also `n/a`, `NA`), as a word anywhere. */
export function saysNotAchievable(text: string): boolean {
  return /(?<![\p{L}\p{N}])n\s*\/\s*a(?![\p{L}\p{N}])|^\s*["'`]?na["'`]?\s*\.?\s*$/iu.test(text.normalize('NFKC'));
}
