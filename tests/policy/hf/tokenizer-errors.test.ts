/**
 * Issue 36: a bad tokenizer folder is refused with an error naming the file and the field — a
 * missing tokenizer.json, a file that is not JSON, a field of the wrong shape, a tokenizer whose
 * vocabulary does not fit the model, a missing chat template — and EOS/stop ids come from
 * generation_config.json (one id or a list) and tokenizer_config.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HfTokenizerError, loadHfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { TOKENIZER_DIRS, readTokenizerConfig, removeTokenizerFolders, tokenizerFolder } from './tokenizer-fixtures.ts';

afterAll(removeTokenizerFolders);

/** The HfTokenizerError `fn` throws (fails the test when it throws nothing or something else). */
function errorOf(fn: () => unknown): HfTokenizerError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HfTokenizerError) return err;
    throw err;
  }
  throw new Error('expected an HfTokenizerError, nothing was thrown');
}

// Folder handling is tested on the fixtures' 384-token BPE (quick to load); its <|im_end|> is 2
// and <|endoftext|> 0. The vocabulary and Llama tests use the real tokenizers.
const tinyConfig = readTokenizerConfig('tiny');
const IM_END = 2;
const ENDOFTEXT = 0;

describe('loadHfTokenizer refuses bad folders (issue 36)', () => {
  it('names the missing tokenizer.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'actorgym-hf-empty-'));
    try {
      const err = errorOf(() => loadHfTokenizer(dir));
      expect(err.code).toBe('HF_TOKENIZER_FILE_MISSING');
      expect(err.file).toBe(join(dir, 'tokenizer.json'));
      expect(err.message).toContain(join(dir, 'tokenizer.json'));
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('names a file that is not JSON', () => {
    const dir = tokenizerFolder('tiny', { 'tokenizer_config.json': '{"chat_template": ' });
    const err = errorOf(() => loadHfTokenizer(dir));
    expect(err.code).toBe('HF_TOKENIZER_CONFIG_INVALID');
    expect(err.message).toContain(join(dir, 'tokenizer_config.json'));
  });

  it('names the field of a tokenizer.json without a model or with a bad vocabulary id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'actorgym-hf-badtok-'));
    try {
      const write = (json: unknown): void => writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
      write({ added_tokens: [] });
      const noModel = errorOf(() => loadHfTokenizer(dir));
      expect([noModel.code, noModel.field]).toEqual(['HF_TOKENIZER_CONFIG_INVALID', 'model']);
      expect(noModel.message).toContain(join(dir, 'tokenizer.json'));
      write({ model: { type: 'BPE', vocab: { a: 0, b: 'one' } } });
      const badId = errorOf(() => loadHfTokenizer(dir));
      expect([badId.code, badId.field]).toEqual(['HF_TOKENIZER_CONFIG_INVALID', 'model.vocab']);
      expect(badId.message).toContain('"b"');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('names the file and field of a wrongly shaped eos_token_id', () => {
    const dir = tokenizerFolder('tiny', { 'generation_config.json': JSON.stringify({ eos_token_id: 'im_end' }) });
    const err = errorOf(() => loadHfTokenizer(dir));
    expect(err.code).toBe('HF_TOKENIZER_CONFIG_INVALID');
    expect(err.field).toBe('eos_token_id');
    expect(err.message).toContain(join(dir, 'generation_config.json'));
    expect(err.message).toContain('"eos_token_id"');
  });

  it('names the file and field of an eos_token_id past the vocabulary', () => {
    const dir = tokenizerFolder('tiny', { 'generation_config.json': JSON.stringify({ eos_token_id: [IM_END, 999_999] }) });
    const err = errorOf(() => loadHfTokenizer(dir));
    expect(err.field).toBe('eos_token_id');
    expect(err.message).toContain('999999');
    expect(err.message).toContain('generation_config.json');
  });

  it('names the field of an eos_token that is not a token', () => {
    const dir = tokenizerFolder('tiny', { 'tokenizer_config.json': JSON.stringify({ ...tinyConfig, eos_token: '<|nope|>' }) });
    const err = errorOf(() => loadHfTokenizer(dir));
    expect(err.field).toBe('eos_token');
    expect(err.message).toContain('<|nope|>');
    expect(err.message).toContain('tokenizer_config.json');
  });

  it('refuses a tokenizer whose ids do not fit the model, naming both numbers', () => {
    const err = errorOf(() => loadHfTokenizer(TOKENIZER_DIRS.qwen3, { vocabSize: 151_000 }));
    expect(err.code).toBe('HF_TOKENIZER_VOCAB_MISMATCH');
    expect(err.message).toContain('151668'); // the largest id (<think>'s end, </think>)
    expect(err.message).toContain('151000');
    expect(err.message).toContain('tokenizer.json');
  });

  it('accepts a model with as many or more embedding rows than tokens, and refuses one row fewer', () => {
    expect(loadHfTokenizer(TOKENIZER_DIRS.tiny, { vocabSize: 384 }).vocabSize).toBe(384);
    expect(loadHfTokenizer(TOKENIZER_DIRS.tiny, { vocabSize: 512 }).vocabSize).toBe(384);
    expect(errorOf(() => loadHfTokenizer(TOKENIZER_DIRS.tiny, { vocabSize: 383 })).message).toContain('vocab_size is 383');
  });

  it('names the folder and both places looked when there is no chat template', () => {
    const { chat_template: _, ...noTemplate } = tinyConfig;
    const dir = tokenizerFolder('tiny', { 'tokenizer_config.json': JSON.stringify(noTemplate) });
    const err = errorOf(() => loadHfTokenizer(dir));
    expect(err.code).toBe('HF_CHAT_TEMPLATE_MISSING');
    expect(err.message).toContain(dir);
    expect(err.message).toContain('chat_template.jinja');
    expect(err.message).toContain('"chat_template" field of tokenizer_config.json');

    // A base model may still be loaded for plain text; only the chat methods refuse.
    const tok = loadHfTokenizer(dir, { requireChatTemplate: false });
    expect(tok.hasChatTemplate).toBe(false);
    expect(tok.decode(tok.encode('go north', { addSpecialTokens: false }))).toBe('go north');
    expect(errorOf(() => tok.encodeChat([{ role: 'user', content: 'hi' }])).code).toBe('HF_CHAT_TEMPLATE_MISSING');
  });

  it('names the template when it raises', () => {
    const dir = tokenizerFolder('tiny', { 'chat_template.jinja': "{{ raise_exception('only user turns') }}" });
    const err = errorOf(() => loadHfTokenizer(dir).applyChatTemplate([{ role: 'user', content: 'hi' }]));
    expect(err.code).toBe('HF_CHAT_TEMPLATE_RENDER');
    expect(err.message).toContain('only user turns');
    expect(err.message).toContain(join(dir, 'chat_template.jinja'));
  });
});

describe('where the chat template comes from (issue 36)', () => {
  const messages = [{ role: 'user', content: 'hi' }];

  it('prefers chat_template.jinja over tokenizer_config.json, as transformers does', () => {
    const dir = tokenizerFolder('tiny', { 'chat_template.jinja': 'FILE {{ messages[0].content }}' });
    expect(loadHfTokenizer(dir).applyChatTemplate(messages)).toBe('FILE hi');
  });

  it('picks tool_use for a conversation with tools and default otherwise from a legacy list', () => {
    const chat_template = [
      { name: 'default', template: 'DEFAULT' },
      { name: 'tool_use', template: 'TOOLS {{ tools | length }}' },
    ];
    const dir = tokenizerFolder('tiny', { 'tokenizer_config.json': JSON.stringify({ ...tinyConfig, chat_template }) });
    const tok = loadHfTokenizer(dir);
    expect(tok.applyChatTemplate(messages)).toBe('DEFAULT');
    expect(tok.applyChatTemplate(messages, { tools: [{ name: 'f' }] })).toBe('TOOLS 1');
  });
});

describe('EOS and stop ids (issue 36)', () => {
  it('take the tokenizer eos_token without a generation config', () => {
    const tok = loadHfTokenizer(TOKENIZER_DIRS.tiny);
    expect(tok.eosIds).toEqual([IM_END]);
    expect(tok.stopIds).toEqual([IM_END]);
  });

  it('take eos_token_id as one number and add the tokenizer eos_token to the stop ids', () => {
    const tok = loadHfTokenizer(tokenizerFolder('tiny', { 'generation_config.json': JSON.stringify({ eos_token_id: ENDOFTEXT }) }));
    expect(tok.eosIds).toEqual([ENDOFTEXT]);
    expect(tok.stopIds).toEqual([ENDOFTEXT, IM_END]);
  });

  it('take eos_token_id as a list', () => {
    const tok = loadHfTokenizer(
      tokenizerFolder('llama3', { 'generation_config.json': JSON.stringify({ bos_token_id: 128000, eos_token_id: [128001, 128008, 128009] }) }),
    );
    expect(tok.eosIds).toEqual([128001, 128008, 128009]);
    expect(tok.stopIds).toEqual([128001, 128008, 128009]); // <|eot_id|> (128009) is already listed
    expect(tok.tokenToId('<|eot_id|>')).toBe(128009);
  });
});
