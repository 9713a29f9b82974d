/** One-hop questions: one fact of one article (NQ/PopQA-style lookups). */
import { place, titles } from './corpus.ts';
import { capitalAnswers, capitalClue, countryAnswers, currencyAnswers, languageAnswers } from './answers.ts';
import type { Facts } from './facts.ts';
import type { Question } from './question.ts';

export function singleHopQuestions(facts: Facts): Question[] {
  const out: Question[] = [];
  for (const c of facts.countries) {
    if (c.capitals.length > 0) {
      out.push({ id: `capital/${c.code}`, kind: 'capital', hops: 1, text: `What is the capital of ${c.name}?`, answers: capitalAnswers(c), evidence: [titles.country(c)] });
    }
    const clue = capitalClue(c, facts);
    if (clue !== undefined) {
      out.push({
        id: `country-of-capital/${c.code}`,
        kind: 'country-of-capital',
        hops: 1,
        text: `${clue} is the capital of which country or territory?`,
        answers: countryAnswers(c),
        evidence: [titles.capital(c, 0)],
      });
    }
    const [currency] = c.currencies;
    if (c.currencies.length === 1 && currency !== undefined) {
      out.push({ id: `currency/${c.code}`, kind: 'currency', hops: 1, text: `What is the currency of ${c.name}?`, answers: currencyAnswers(currency, facts), evidence: [titles.country(c)] });
    }
    const [language] = c.languages;
    if (c.languages.length === 1 && language !== undefined) {
      out.push({
        id: `language/${c.code}`,
        kind: 'language',
        hops: 1,
        text: `What is the official language of ${c.name}?`,
        answers: languageAnswers(language, facts),
        evidence: [titles.country(c)],
      });
    }
    if (c.subregion !== '' && c.subregion !== c.region) {
      out.push({
        id: `subregion/${c.code}`,
        kind: 'subregion',
        hops: 1,
        text: `In which subregion of ${place(c.region)} is ${c.name} located?`,
        answers: [c.subregion],
        evidence: [titles.country(c)],
      });
    }
  }
  return out;
}
