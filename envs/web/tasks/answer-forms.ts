/**
 * The sentence an objective ends with to say what form its answer takes, one per kind of answer,
 * so an agent knows to answer with the value alone (the evaluators read one value of the kind
 * and fail an answer that states several). Infeasible tasks are covered by the prompt's rule:
 * answer N/A (envs/web/prompt.ts).
 */
export const ANSWER_FORMS = {
  number: 'Answer with the number only.',
  price: 'Answer with the price only.',
  rating: 'Answer with the rating only, as the page shows it.',
  date: 'Answer with the date only, as YYYY-MM-DD.',
  sku: 'Answer with the SKU only.',
  productName: 'Answer with the full product name only, as the shop shows it.',
  brand: 'Answer with the brand name only.',
  username: 'Answer with the username only.',
  title: 'Answer with the post title only.',
} as const;

/** An objective with the answer form after it: `ask` ends with `?` or `.`. */
export function asking(ask: string, form: keyof typeof ANSWER_FORMS): string {
  return `${ask} ${ANSWER_FORMS[form]}`;
}
