/**
 * Word forms for the instruction copy (`TransformerConfig.copyWordForms`). The copy bag holds token
 * ids, but one word has several tokens: the tokenizer marks a word boundary with a leading space,
 * so the instruction's " go" and an action's first word "go" are different ids, and the action
 * grammar may join two instruction words into one ("pick up the key" → `pickup key 1`). Without
 * the forms, the copy never reaches an action's first word, which in AgentGym's grammars is the
 * verb (docs/training-babyai.md).
 *
 * The forms are derived from the vocabulary alone, so a checkpoint's tokenizer rebuilds them.
 */
import type { InstructionState } from './instruction-copy.ts';

export interface CopyForms {
  /** [token, token of the same word with or without the leading space]. */
  readonly same: readonly (readonly [number, number])[];
  /** [first, second, joined]: two adjacent words written as one ("pick" "up" → "pickup"). */
  readonly joined: readonly (readonly [number, number, number])[];
}

const WORD = /^ ?\p{L}+$/u;

/** The forms a vocabulary (token strings by id) has. */
export function copyForms(vocab: readonly string[]): CopyForms {
  const ids = new Map<string, number>();
  vocab.forEach((token, id) => {
    if (WORD.test(token)) ids.set(token, id);
  });
  const same: [number, number][] = [];
  const joined: [number, number, number][] = [];
  const spaced = [...ids.keys()].filter((t) => t.startsWith(' '));
  for (const token of spaced) {
    const bare = ids.get(token.slice(1));
    if (bare !== undefined) same.push([ids.get(token)!, bare], [bare, ids.get(token)!]);
  }
  // Instruction words follow a space; the joined word may appear with or without one.
  for (const first of spaced) {
    for (const second of spaced) {
      const word = first.slice(1) + second.slice(1);
      for (const form of [word, ` ${word}`]) {
        const id = ids.get(form);
        if (id !== undefined) joined.push([ids.get(first)!, ids.get(second)!, id]);
      }
    }
  }
  return { same, joined };
}

/** Fast lookups over `CopyForms`, built once per config. */
interface FormIndex {
  readonly same: ReadonlyMap<number, readonly number[]>;
  readonly joined: ReadonlyMap<number, readonly number[]>;
}

const indexes = new WeakMap<CopyForms, FormIndex>();
const pairKey = (a: number, b: number): number => a * 65536 + b;

function index(forms: CopyForms): FormIndex {
  let found = indexes.get(forms);
  if (found === undefined) {
    const same = new Map<number, number[]>();
    const joined = new Map<number, number[]>();
    for (const [a, b] of forms.same) same.set(a, [...(same.get(a) ?? []), b]);
    for (const [a, b, c] of forms.joined) joined.set(pairKey(a, b), [...(joined.get(pairKey(a, b)) ?? []), c]);
    found = { same, joined };
    indexes.set(forms, found);
  }
  return found;
}

/** The ids an instruction marks in the copy bag: its words, and with `forms` their other forms. */
export function bagIds(state: InstructionState, forms?: CopyForms): readonly number[] {
  if (forms === undefined) return state.ids;
  const { same, joined } = index(forms);
  const out = [...state.ids];
  state.ids.forEach((id, i) => {
    out.push(...(same.get(id) ?? []));
    if (i + 1 < state.ids.length) out.push(...(joined.get(pairKey(id, state.ids[i + 1]!)) ?? []));
  });
  return out;
}
