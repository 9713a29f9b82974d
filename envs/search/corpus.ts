/**
 * The Deep Search corpus: encyclopedia-style documents written from the world-countries facts.
 * Per country an overview (`France`) and a geography article (`Geography of France`); per
 * capital city, currency, language and subregion one article. Contents follow the wiki-18
 * corpus of Search-R1 and AgentGym (`"Title"\ntext`), so local and external retrievers format
 * the same way.
 */
import { joinList, loadFacts, type Country, type Facts } from './facts.ts';

export interface Document {
  /** Stable id, e.g. `country/FRA`, `capital/FRA/0`, `currency/EUR`. */
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

/** The wiki-18 `contents` field: the quoted title, a newline, the text. */
export const contentsOf = (doc: Document): string => `"${doc.title}"\n${doc.text}`;

let cached: readonly Document[] | undefined;

export function corpus(): readonly Document[] {
  cached ??= buildCorpus(loadFacts());
  return cached;
}

/** Titles the generator and oracle use to name the article a fact lives in. */
export const titles = {
  country: (c: Country): string => c.name,
  geography: (c: Country): string => `Geography of ${c.name}`,
  capital: (c: Country, i: number): string => capitalTitle(loadFacts(), c, c.capitals[i] as string),
  currency: (code: string): string => currencyTitle(loadFacts(), code),
  language: (code: string): string => languageTitle(loadFacts().languages.get(code)?.name ?? code),
} as const;

function buildCorpus(facts: Facts): Document[] {
  const docs: Document[] = [];
  const names = (codes: readonly string[]) => codes.map((code) => facts.byCode.get(code)?.name ?? code);
  for (const c of facts.countries) {
    docs.push({ id: `country/${c.code}`, title: titles.country(c), text: overview(facts, c) });
    docs.push({ id: `geography/${c.code}`, title: titles.geography(c), text: geography(c, names(c.borders)) });
    c.capitals.forEach((city, i) => {
      const others = c.capitals.filter((_, j) => j !== i);
      const role = others.length === 0 ? `the capital city of ${c.name}` : `one of the capital cities of ${c.name}, along with ${joinList(others)}`;
      const text = `${city} is ${role}, ${where(c)}. As the seat of government it is the country's political centre.`;
      docs.push({ id: `capital/${c.code}/${i}`, title: titles.capital(c, i), text });
    });
  }
  for (const cur of facts.currencies.values()) {
    const users = facts.countries.filter((c) => c.currencies.includes(cur.code)).map((c) => c.name);
    const symbol = cur.symbol ? `, symbol ${cur.symbol}` : '';
    const aka = cur.otherNames.length > 0 ? ` It is also called the ${joinList(cur.otherNames)}.` : '';
    docs.push({ id: `currency/${cur.code}`, title: titles.currency(cur.code), text: `The ${cur.name} (ISO 4217 code ${cur.code}${symbol}) is the currency of ${counted(users)}.${aka}` });
  }
  for (const lang of facts.languages.values()) {
    const speakers = facts.countries.filter((c) => c.languages.includes(lang.code)).map((c) => c.name);
    docs.push({ id: `language/${lang.code}`, title: titles.language(lang.code), text: `${lang.name} is an official language of ${counted(speakers)}.` });
  }
  const subregions = new Map<string, Country[]>();
  for (const c of facts.countries) if (c.subregion) subregions.set(c.subregion, [...(subregions.get(c.subregion) ?? []), c]);
  for (const [name, members] of [...subregions].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const region = members[0]?.region ?? '';
    const title = facts.countries.some((c) => c.name === name) ? `${name} (region)` : name;
    docs.push({ id: `subregion/${name}`, title, text: `${name} is a subregion of ${place(region)}. It comprises ${counted(members.map((m) => m.name))}.` });
  }
  assertUniqueTitles(docs);
  return docs;
}

function overview(facts: Facts, c: Country): string {
  const kind = c.independent ? 'a sovereign country' : 'a territory';
  const officially = c.official !== c.name ? ` (official name: ${c.official})` : '';
  const parts = [`${c.name}${officially} is ${kind} ${where(c)}.`];
  if (c.capitals.length === 1) parts.push(`Its capital is ${c.capitals[0] as string}.`);
  else if (c.capitals.length > 1) parts.push(`It has ${c.capitals.length} capitals: ${joinList(c.capitals)}.`);
  else parts.push(`${c.name} has no capital city.`);
  parts.push(`${c.name} covers an area of ${formatArea(c.area)} square kilometres.`);
  const langs = c.languages.map((code) => facts.languages.get(code)?.name ?? code);
  if (langs.length === 1) parts.push(`The official language of ${c.name} is ${langs[0] as string}.`);
  else if (langs.length > 1) parts.push(`The official languages of ${c.name} are ${joinList(langs)}.`);
  const curs = c.currencies.map((code) => `${facts.currencies.get(code)?.name ?? code} (${code})`);
  if (curs.length === 1) parts.push(`The currency of ${c.name} is the ${curs[0] as string}.`);
  else if (curs.length > 1) parts.push(`The currencies of ${c.name} are the ${joinList(curs)}.`);
  if (c.demonym) parts.push(`Its people are called ${c.demonym}.`);
  if (c.tld.length > 0) parts.push(`Its internet country code top-level domain is ${joinList(c.tld)}.`);
  return parts.join(' ');
}

function geography(c: Country, neighbours: readonly string[]): string {
  const [lat, lng] = c.latlng;
  const parts = [`${c.name} is located ${where(c)}, around latitude ${lat} and longitude ${lng}.`];
  parts.push(c.landlocked ? `${c.name} is a landlocked country.` : `${c.name} is not landlocked.`);
  if (neighbours.length === 0) parts.push(`${c.name} has no land borders with other countries.`);
  else if (neighbours.length === 1) parts.push(`${c.name} shares a land border with one country: ${neighbours[0] as string}.`);
  else parts.push(`${c.name} shares land borders with ${neighbours.length} countries: ${joinList(neighbours)}.`);
  parts.push(`The total area of ${c.name} is ${formatArea(c.area)} square kilometres.`);
  return parts.join(' ');
}

function where(c: Country): string {
  if (c.subregion && c.subregion !== c.region) return `in ${place(c.subregion)}, a subregion of ${place(c.region)}`;
  return c.region ? `in ${place(c.region)}` : 'in no continental region';
}

/** "in the Caribbean", "of the Americas", but "in Western Europe". */
export function place(name: string): string {
  return name === 'Caribbean' || name === 'Americas' ? `the ${name}` : name;
}

function counted(names: readonly string[]): string {
  if (names.length === 1) return names[0] as string;
  return `${names.length} countries and territories: ${joinList(names)}`;
}

/** `551695` → `551,695`; `0.44` stays. Written by hand so no locale changes the corpus. */
export function formatArea(area: number): string {
  const [whole, fraction] = String(area).split('.');
  const grouped = (whole as string).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

function capitalTitle(facts: Facts, c: Country, city: string): string {
  // A city that shares its name with a country, or with another capital, gets Wikipedia's
  // disambiguation (`Kingston, Jamaica`), so titles stay unique.
  const sameName = facts.countries.some((o) => o.name === city) || facts.countries.some((o) => o !== c && o.capitals.includes(city));
  return sameName ? `${city}, ${c.name}` : city;
}

function currencyTitle(facts: Facts, code: string): string {
  const name = facts.currencies.get(code)?.name ?? code;
  const clash = facts.countries.some((c) => c.name === name || c.capitals.includes(name));
  return clash ? `${name} (currency)` : name;
}

function languageTitle(name: string): string {
  return /language$/i.test(name) ? name : `${name} language`;
}

function assertUniqueTitles(docs: readonly Document[]): void {
  const seen = new Set<string>();
  for (const d of docs) {
    if (seen.has(d.title)) throw new Error(`search corpus: duplicate title "${d.title}" (${d.id})`);
    seen.add(d.title);
  }
}
