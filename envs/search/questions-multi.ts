/**
 * Two- and three-hop questions (HotpotQA/MuSiQue-style): a bridge entity found through one
 * article (a capital, a border, a currency or language), then a fact of that entity. Every
 * question is kept only when its bridge entity is the single one that fits, so the answer set
 * is unique.
 */
import { titles } from './corpus.ts';
import { capitalAnswers, capitalClue, countryAnswers, currencyAnswers, languageAnswers, neighbours, noun } from './answers.ts';
import type { Country, Facts } from './facts.ts';
import { Rng } from '../rng.ts';
import type { Question } from './question.ts';

export function multiHopQuestions(facts: Facts): Question[] {
  const out: Question[] = [];
  for (const a of facts.countries) {
    const clue = capitalClue(a, facts);
    if (clue !== undefined) out.push(...fromCapitalClue(facts, a, clue));
    for (const code of currenciesAround(a, facts)) {
      const users = neighbours(a, (n) => n.currencies.includes(code), facts);
      const [b] = users;
      if (users.length !== 1 || b === undefined || b.capitals.length === 0) continue;
      const name = facts.currencies.get(code)?.name ?? code;
      out.push({
        id: `border-currency-capital/${a.code}/${code}`,
        kind: 'border-currency-capital',
        hops: 2,
        text: `What is the capital of the ${noun(b)} that uses the ${name} and borders ${a.name}?`,
        answers: capitalAnswers(b),
        evidence: [titles.geography(a), titles.currency(code), titles.country(b)],
      });
    }
    for (const b of neighbours(a, (n) => n.code > a.code, facts)) {
      if (a.area === b.area) continue;
      const larger = a.area > b.area ? a : b;
      const id = `larger-area/${a.code}/${b.code}`;
      // The order in the text comes from the id, so the answer is not always the first name.
      const [x, y] = Rng.fromString(id).bool() ? [a, b] : [b, a];
      out.push({
        id,
        kind: 'larger-area',
        hops: 2,
        text: `Which has the larger area, ${x.name} or ${y.name}?`,
        answers: countryAnswers(larger),
        evidence: [titles.country(x), titles.country(y)],
      });
    }
  }
  return out;
}

function fromCapitalClue(facts: Facts, a: Country, clue: string): Question[] {
  const out: Question[] = [];
  const viaCapital = titles.capital(a, 0);
  const whose = `the ${noun(a)} whose capital is ${clue}`;
  const [currency] = a.currencies;
  if (a.currencies.length === 1 && currency !== undefined) {
    out.push({
      id: `capital-currency/${a.code}`,
      kind: 'capital-currency',
      hops: 2,
      text: `Which currency is used by ${whose}?`,
      answers: currencyAnswers(currency, facts),
      evidence: [viaCapital, titles.country(a)],
    });
  }
  const [language] = a.languages;
  if (a.languages.length === 1 && language !== undefined) {
    out.push({
      id: `capital-language/${a.code}`,
      kind: 'capital-language',
      hops: 2,
      text: `What is the official language of ${whose}?`,
      answers: languageAnswers(language, facts),
      evidence: [viaCapital, titles.country(a)],
    });
  }
  const start = [viaCapital, titles.geography(a)];
  for (const code of currenciesAround(a, facts)) {
    const [b, ...more] = neighbours(a, (n) => n.currencies.includes(code), facts);
    if (b === undefined || more.length > 0 || b.capitals.length === 0) continue;
    out.push({
      id: `capital-border-currency-capital/${a.code}/${code}`,
      kind: 'capital-border-currency-capital',
      hops: 3,
      text: `What is the capital of the ${noun(b)} that uses the ${facts.currencies.get(code)?.name ?? code} and borders ${whose}?`,
      answers: capitalAnswers(b),
      evidence: [...start, titles.currency(code), titles.country(b)],
    });
  }
  for (const lang of languagesAround(a, facts)) {
    const [b, ...more] = neighbours(a, (n) => n.languages.includes(lang), facts);
    const [currency] = b?.currencies ?? [];
    if (b === undefined || more.length > 0 || b.currencies.length !== 1 || currency === undefined) continue;
    out.push({
      id: `capital-border-language-currency/${a.code}/${lang}`,
      kind: 'capital-border-language-currency',
      hops: 3,
      text: `Which currency is used by the ${noun(b)} that has ${facts.languages.get(lang)?.name ?? lang} as an official language and borders ${whose}?`,
      answers: currencyAnswers(currency, facts),
      evidence: [...start, titles.language(lang), titles.country(b)],
    });
  }
  const [landlocked, ...others] = neighbours(a, (n) => n.landlocked, facts);
  if (landlocked !== undefined && others.length === 0 && landlocked.capitals.length > 0) {
    out.push({
      id: `capital-border-landlocked-capital/${a.code}`,
      kind: 'capital-border-landlocked-capital',
      hops: 3,
      text: `What is the capital of the landlocked ${noun(landlocked)} that borders ${whose}?`,
      answers: capitalAnswers(landlocked),
      evidence: [...start, titles.geography(landlocked), titles.country(landlocked)],
    });
  }
  return out;
}

/** Currencies some neighbour of `a` uses, sorted. */
function currenciesAround(a: Country, facts: Facts): string[] {
  return [...new Set(neighbours(a, () => true, facts).flatMap((n) => n.currencies))].sort();
}

function languagesAround(a: Country, facts: Facts): string[] {
  return [...new Set(neighbours(a, () => true, facts).flatMap((n) => n.languages))].sort();
}
