/**
 * Gold answers with their aliases, and the clues questions may use. An alias is accepted only
 * when it names its entity and nothing else the question could mean (facts.ts drops country
 * names two countries share; currency names two currencies share are dropped here).
 */
import { loadFacts, stripDiacritics, unique, type Country, type Facts } from './facts.ts';

const withPlainSpelling = (names: readonly string[]): string[] => unique(names.flatMap((n) => [n, stripDiacritics(n)]));

export function countryAnswers(c: Country): string[] {
  return withPlainSpelling([c.name, ...c.aliases]);
}

export function capitalAnswers(c: Country): string[] {
  return withPlainSpelling(c.capitals);
}

export function currencyAnswers(code: string, facts: Facts = loadFacts()): string[] {
  const cur = facts.currencies.get(code);
  if (!cur) return [code];
  const sharedName = (name: string) => [...facts.currencies.values()].some((o) => o.code !== code && [o.name, ...o.otherNames].includes(name));
  return withPlainSpelling([cur.name, ...cur.otherNames.filter((n) => !sharedName(n)), code]);
}

export function languageAnswers(code: string, facts: Facts = loadFacts()): string[] {
  return withPlainSpelling([facts.languages.get(code)?.name ?? code]);
}

/**
 * The capital that identifies `c` in a question ("the country whose capital is Z"): only for a
 * country with one capital that no other country has, and not named like a country
 * ("the country whose capital is Singapore" gives the answer away).
 */
export function capitalClue(c: Country, facts: Facts = loadFacts()): string | undefined {
  if (c.capitals.length !== 1) return undefined;
  const city = c.capitals[0] as string;
  if (facts.countries.some((o) => o !== c && (o.capitals.includes(city) || o.name === city))) return undefined;
  if (city === c.name) return undefined;
  return city;
}

/** The neighbours of `c` that satisfy `test`, as countries. */
export function neighbours(c: Country, test: (n: Country) => boolean, facts: Facts = loadFacts()): Country[] {
  return c.borders.map((code) => facts.byCode.get(code)).filter((n): n is Country => n !== undefined && test(n));
}

/** How questions refer to a place: "country" when independent, else "territory" (Guam, Mayotte). */
export function noun(c: Country): 'country' | 'territory' {
  return c.independent ? 'country' : 'territory';
}
