/**
 * Word-level tokenizer with a character fallback; every text over the vocabulary's characters
 * round-trips exactly (`decode(encode(s)) === s`).
 *
 * Pieces. Text is cut into pieces by `PIECE`: a run of letters, a run of digits (numbers are
 * words: "12" is one piece), one other symbol, or one whitespace character — each of the first
 * three optionally carrying ONE leading space. A piece in the vocabulary is one token.
 *
 * Fallback. A piece not in the vocabulary is spelled: its leading space as the " " token, then
 * one token per character (`<unk>` for a character the vocabulary lacks, the only lossy case).
 * The leading space is the word-boundary marker (as SentencePiece's ▁): a token without one
 * continues the previous token, so decoding is plain concatenation and needs no separate
 * continuation marker.
 *
 * Case. Matching is case-sensitive, deliberately: actions sent to environments must come back
 * byte for byte, env texts are templated (few case variants, so frequent forms such as "You"
 * earn their own entry), and a rare variant ("GO") simply spells out. Lower-casing would make
 * encoding lossy; a capitalisation marker would spend a token on every sentence start.
 *
 * Special tokens (special-tokens.ts) have fixed ids 0–5; `encode` treats their spellings in text
 * as plain characters unless `allowSpecial` is set, so an observation cannot inject `</act>`.
 */
import { NUM_SPECIAL, SPECIAL_TOKENS, UNK_ID, isSpecialId } from './special-tokens.ts';

const PIECE = / ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]|\s/gu;
const SPECIAL_SPLIT = new RegExp(`(${SPECIAL_TOKENS.map((s) => s.replace(/[/<>]/g, '\\$&')).join('|')})`);

/** Characters every vocabulary holds, so that any ASCII text round-trips. */
const BASE_CHARS: readonly string[] = ['\n', '\t', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))];

export interface TokenizerJSON {
  readonly kind: 'actorgym-word-tokenizer';
  readonly version: 1;
  /** Token strings by id; ids 0–5 are the special tokens. */
  readonly vocab: readonly string[];
}

export interface FromCorpusOptions {
  /** Total vocabulary size including specials and base characters (default 512). */
  readonly maxVocab?: number;
  /** Pieces seen fewer times are spelled out (default 2). */
  readonly minCount?: number;
}

export interface EncodeOptions {
  /** Recognise `<bos>`, `</act>`… in the text as special tokens (default false). */
  readonly allowSpecial?: boolean;
}

export class Tokenizer {
  readonly #vocab: readonly string[];
  readonly #ids: ReadonlyMap<string, number>;

  private constructor(vocab: readonly string[]) {
    this.#vocab = vocab;
    // Specials are not looked up from text pieces (they never match PIECE as a whole anyway).
    this.#ids = new Map(vocab.map((token, id) => [token, id] as const).filter(([, id]) => !isSpecialId(id)));
  }

  /** Builds a vocabulary: specials, base characters, other characters seen, then frequent pieces. */
  static fromCorpus(texts: Iterable<string>, options: FromCorpusOptions = {}): Tokenizer {
    const maxVocab = options.maxVocab ?? 512;
    const minCount = options.minCount ?? 2;
    const pieceCounts = new Map<string, number>();
    const charCounts = new Map<string, number>();
    for (const text of texts) {
      for (const piece of text.match(PIECE) ?? []) pieceCounts.set(piece, (pieceCounts.get(piece) ?? 0) + 1);
      for (const ch of text) charCounts.set(ch, (charCounts.get(ch) ?? 0) + 1);
    }
    const vocab: string[] = [...SPECIAL_TOKENS, ...BASE_CHARS];
    if (maxVocab < vocab.length) {
      throw new Error(`maxVocab ${maxVocab} is below the ${vocab.length} specials and base characters`);
    }
    const seen = new Set(vocab);
    const byFrequency = (m: Map<string, number>, min: number): string[] =>
      [...m].filter(([s, n]) => n >= min && !seen.has(s)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([s]) => s);
    for (const token of [...byFrequency(charCounts, 1), ...byFrequency(pieceCounts, minCount)]) {
      if (vocab.length >= maxVocab) break;
      if (seen.has(token)) continue;
      seen.add(token);
      vocab.push(token);
    }
    return new Tokenizer(vocab);
  }

  static fromJSON(json: TokenizerJSON): Tokenizer {
    if (json.kind !== 'actorgym-word-tokenizer' || json.version !== 1) {
      throw new Error(`not an actorgym tokenizer (kind ${String(json.kind)}, version ${String(json.version)})`);
    }
    SPECIAL_TOKENS.forEach((s, id) => {
      if (json.vocab[id] !== s) throw new Error(`tokenizer JSON: id ${id} must be ${s}, found ${String(json.vocab[id])}`);
    });
    if (new Set(json.vocab).size !== json.vocab.length) throw new Error('tokenizer JSON: duplicate tokens');
    return new Tokenizer([...json.vocab]);
  }

  toJSON(): TokenizerJSON {
    return { kind: 'actorgym-word-tokenizer', version: 1, vocab: [...this.#vocab] };
  }

  get vocabSize(): number {
    return this.#vocab.length;
  }

  /** Token string of an id (special tokens by their names). */
  token(id: number): string {
    const t = this.#vocab[id];
    if (t === undefined) throw new Error(`token id ${id} outside the vocabulary [0, ${this.#vocab.length})`);
    return t;
  }

  /** Id of a non-special token string, if the vocabulary holds it. */
  id(token: string): number | undefined {
    return this.#ids.get(token);
  }

  encode(text: string, options: EncodeOptions = {}): number[] {
    const out: number[] = [];
    if (options.allowSpecial === true) {
      for (const part of text.split(SPECIAL_SPLIT)) {
        const special = SPECIAL_TOKENS.indexOf(part as (typeof SPECIAL_TOKENS)[number]);
        if (special >= 0) out.push(special);
        else this.#encodePlain(part, out);
      }
    } else {
      this.#encodePlain(text, out);
    }
    return out;
  }

  #encodePlain(text: string, out: number[]): void {
    for (const piece of text.match(PIECE) ?? []) {
      const id = this.#ids.get(piece);
      if (id !== undefined) {
        out.push(id);
        continue;
      }
      let rest = piece;
      if (piece.length > 1 && piece.startsWith(' ')) {
        out.push(this.#ids.get(' ') ?? UNK_ID);
        rest = piece.slice(1);
        const bare = this.#ids.get(rest);
        if (bare !== undefined) {
          out.push(bare);
          continue;
        }
      }
      for (const ch of rest) out.push(this.#ids.get(ch) ?? UNK_ID);
    }
  }

  /** Concatenates token strings; `skipSpecial` drops special tokens instead of naming them. */
  decode(ids: Iterable<number>, options: { readonly skipSpecial?: boolean } = {}): string {
    let s = '';
    for (const id of ids) {
      if (options.skipSpecial === true && id < NUM_SPECIAL) continue;
      s += this.token(id);
    }
    return s;
  }
}
