/**
 * The facts behind Deep Search: the npm package `world-countries` (mledoze/countries, ODbL),
 * reshaped into countries, currencies and languages keyed by their codes. Loaded once per
 * process; everything downstream (corpus, questions) is a pure function of these tables, so
 * a pinned package version pins the whole env.
 */
import { createRequire } from 'node:module';
import type { Countries } from 'world-countries';

// The package is CommonJS (`module.exports = require('./countries.json')`); its typings
// declare an ES default export, which NodeNext resolution models differently from what Node
// loads, so the data is required directly and typed with the package's own types.
const countries = createRequire(import.meta.url)('world-countries') as Countries;

export interface Currency {
  /** ISO 4217 code, e.g. `EUR`. */
  readonly code: string;
  /** The name most countries use for it (`Euro`); ties go to the longer, more specific name. */
  readonly name: string;
  readonly symbol: string;
  /** Other names countries use for it (`British pound` and `Pound sterling` are both GBP). */
  readonly otherNames: readonly string[];
}

export interface Language {
  /** ISO 639-3 code, e.g. `fra`. */
  readonly code: string;
  readonly name: string;
}

export interface Country {
  /** ISO 3166-1 alpha-3 code, the key used in task ids. */
  readonly code: string;
  readonly cca2: string;
  readonly name: string;
  readonly official: string;
  /** Names that identify this country and no other (official name, alternative spellings). */
  readonly aliases: readonly string[];
  readonly capitals: readonly string[];
  readonly region: string;
  readonly subregion: string;
  readonly languages: readonly string[];
  readonly currencies: readonly string[];
  readonly borders: readonly string[];
  readonly area: number;
  readonly landlocked: boolean;
  readonly independent: boolean;
  readonly demonym: string;
  readonly tld: readonly string[];
  readonly latlng: readonly [number, number];
}

export interface Facts {
  /** Sorted by code, so iteration order never depends on the package's array order. */
  readonly countries: readonly Country[];
  readonly byCode: ReadonlyMap<string, Country>;
  readonly currencies: ReadonlyMap<string, Currency>;
  readonly languages: ReadonlyMap<string, Language>;
}

let cached: Facts | undefined;

export function loadFacts(): Facts {
  cached ??= buildFacts();
  return cached;
}

function buildFacts(): Facts {
  const raw = [...countries].sort((a, b) => (a.cca3 < b.cca3 ? -1 : 1));
  const currencyNames = new Map<string, Map<string, number>>();
  const symbols = new Map<string, string>();
  const languageNames = new Map<string, string>();
  for (const c of raw) {
    for (const [code, cur] of Object.entries(c.currencies ?? {})) {
      const names = currencyNames.get(code) ?? new Map<string, number>();
      const name = capitalize(cur.name);
      names.set(name, (names.get(name) ?? 0) + 1);
      currencyNames.set(code, names);
      if (!symbols.has(code)) symbols.set(code, cur.symbol ?? '');
    }
    // `ron` is "Moldavian" for Moldova and "Romanian" elsewhere: the first name in code order wins.
    for (const [code, name] of Object.entries(c.languages ?? {})) if (!languageNames.has(code)) languageNames.set(code, name);
  }
  const currencies = new Map<string, Currency>();
  for (const [code, names] of [...currencyNames].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const ranked = [...names].sort(([a, n], [b, m]) => m - n || b.length - a.length || (a < b ? -1 : 1)).map(([name]) => name);
    currencies.set(code, { code, name: ranked[0] as string, symbol: symbols.get(code) ?? '', otherNames: ranked.slice(1) });
  }
  const languages = new Map<string, Language>([...languageNames].map(([code, name]) => [code, { code, name }]));

  const aliasOwners = new Map<string, Set<string>>();
  const candidateAliases = new Map<string, string[]>();
  for (const c of raw) {
    const names = [c.name.common, c.name.official, ...c.altSpellings].filter((n) => n !== c.cca2 && n !== c.cca3 && n.trim() !== '');
    candidateAliases.set(c.cca3, names);
    for (const n of names) aliasOwners.set(n.toLowerCase(), (aliasOwners.get(n.toLowerCase()) ?? new Set()).add(c.cca3));
  }
  const list: Country[] = raw.map((c) => ({
    code: c.cca3,
    cca2: c.cca2,
    name: c.name.common,
    official: c.name.official,
    // A name two countries share would accept a wrong answer, so it is not an alias.
    aliases: unique((candidateAliases.get(c.cca3) ?? []).filter((n) => aliasOwners.get(n.toLowerCase())?.size === 1)),
    capitals: c.capital,
    region: c.region,
    subregion: c.subregion,
    languages: Object.keys(c.languages ?? {}),
    currencies: Object.keys(c.currencies ?? {}),
    borders: [...c.borders].sort(),
    area: c.area,
    landlocked: c.landlocked,
    independent: c.independent,
    demonym: c.demonyms?.['eng']?.m ?? '',
    tld: c.tld ?? [],
    latlng: [c.latlng[0], c.latlng[1]],
  }));
  return { countries: list, byCode: new Map(list.map((c) => [c.code, c])), currencies, languages };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

// Letters that Unicode does not decompose into a base letter and a mark.
const FOLD: Readonly<Record<string, string>> = { ł: 'l', Ł: 'L', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ß: 'ss', æ: 'ae', Æ: 'Ae', ı: 'i', ʻ: '', ʼ: '' };

/** `Bogotá` → `Bogota`, `złoty` → `zloty`: the spelling of answers typed on an English keyboard. */
export function stripDiacritics(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').replace(/[łŁøØđĐßæÆıʻʼ]/g, (ch) => FOLD[ch] ?? ch);
}

/** `A`, `A and B`, `A, B and C`. */
export function joinList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] as string}`;
}
