/**
 * The chat template of a model folder, found where transformers looks for it and rendered the way
 * its `apply_chat_template` renders it (@huggingface/jinja compiles with trim_blocks and
 * lstrip_blocks, and provides tojson, raise_exception and strftime_now, as transformers does).
 *
 * Where. `chat_template.jinja` (current transformers saves it there) and named templates in
 * `additional_chat_templates/NAME.jinja` take priority over `tokenizer_config.json`'s
 * `chat_template`, which is one template or a legacy list of named ones. With several, `tool_use`
 * renders a conversation with tools when there is one, `default` everything else.
 *
 * What the template sees: `messages`, `tools` and `documents` (null when not given, as Python's
 * None), `add_generation_prompt`, the named special tokens of tokenizer_config.json
 * (`bos_token`, `eos_token`, …, as strings), then the caller's extra variables (`enable_thinking`,
 * `date_string`, …), which override the special tokens as they do in transformers.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import type { TokenizerConfig } from './config-schemas.ts';
import { HfTokenizerError } from './hf-tokenizer-error.ts';

export const CHAT_TEMPLATE_FILE = 'chat_template.jinja';
export const ADDITIONAL_CHAT_TEMPLATES_DIR = 'additional_chat_templates';

/**
 * A chat message as templates read it; assistant turns may carry `tool_calls` or
 * `reasoning_content`. No index signature, so the LLM policy's messages (policy/llm) pass as they are.
 */
export interface ChatMessage {
  readonly role: string;
  readonly content?: string | null;
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly unknown[];
  readonly tool_call_id?: string;
  readonly name?: string;
}

export interface ChatTemplateOptions {
  /** Append the header that opens the assistant's turn (default false, as in transformers). */
  readonly addGenerationPrompt?: boolean;
  /** Tool JSON schemas, for templates that list tools. */
  readonly tools?: readonly unknown[];
  /** Documents for retrieval-augmented templates. */
  readonly documents?: readonly unknown[];
  /** Further template variables (`enable_thinking: false`, `date_string`, …). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** One template and where it came from (a path, or `tokenizer_config.json#chat_template`). */
export interface ChatTemplateSource {
  readonly text: string;
  readonly source: string;
}

/** The folder's templates by name (`default`, `tool_use`, …); empty when it has none. */
export function findChatTemplates(dir: string, config: TokenizerConfig | undefined): ReadonlyMap<string, ChatTemplateSource> {
  const templates = new Map<string, ChatTemplateSource>();
  const file = join(dir, CHAT_TEMPLATE_FILE);
  if (existsSync(file)) templates.set('default', { text: readFileSync(file, 'utf8'), source: file });
  const extraDir = join(dir, ADDITIONAL_CHAT_TEMPLATES_DIR);
  if (existsSync(extraDir)) {
    for (const name of readdirSync(extraDir).sort()) {
      if (!name.endsWith('.jinja')) continue;
      const path = join(extraDir, name);
      templates.set(name.slice(0, -'.jinja'.length), { text: readFileSync(path, 'utf8'), source: path });
    }
  }
  if (templates.size > 0) return templates;
  const configured = config?.chat_template;
  const source = `${join(dir, 'tokenizer_config.json')}#chat_template`;
  if (typeof configured === 'string') templates.set('default', { text: configured, source });
  else if (Array.isArray(configured)) {
    for (const { name, template } of configured) templates.set(name, { text: template, source: `${source}[${name}]` });
  }
  return templates;
}

export function missingChatTemplateError(dir: string): HfTokenizerError {
  return new HfTokenizerError(
    'HF_CHAT_TEMPLATE_MISSING',
    `no chat template in ${dir}: looked for ${CHAT_TEMPLATE_FILE} and for the "chat_template" field of tokenizer_config.json`,
    join(dir, 'tokenizer_config.json'),
    'chat_template',
  );
}

/** The template transformers' `get_chat_template` would pick. */
export function selectChatTemplate(
  dir: string,
  templates: ReadonlyMap<string, ChatTemplateSource>,
  hasTools: boolean,
): ChatTemplateSource {
  const chosen = (hasTools ? templates.get('tool_use') : undefined) ?? templates.get('default');
  if (chosen !== undefined) return chosen;
  if (templates.size === 0) throw missingChatTemplateError(dir);
  throw new HfTokenizerError(
    'HF_CHAT_TEMPLATE_MISSING',
    `${dir} has several chat templates (${[...templates.keys()].join(', ')}) and none named "default"`,
    join(dir, 'tokenizer_config.json'),
    'chat_template',
  );
}

// Compiled once per template, for as long as the template is held.
const compiled = new WeakMap<ChatTemplateSource, Template>();

/** Renders `template` over the conversation; a template error names the template's source. */
export function renderChatTemplate(
  template: ChatTemplateSource,
  messages: readonly ChatMessage[],
  specialTokens: Readonly<Record<string, string>>,
  options: ChatTemplateOptions = {},
): string {
  try {
    let program = compiled.get(template);
    if (program === undefined) {
      program = new Template(template.text);
      compiled.set(template, program);
    }
    return program.render({
      messages,
      tools: options.tools ?? null,
      documents: options.documents ?? null,
      add_generation_prompt: options.addGenerationPrompt ?? false,
      ...specialTokens,
      ...options.extra,
    });
  } catch (err) {
    throw new HfTokenizerError(
      'HF_CHAT_TEMPLATE_RENDER',
      `chat template ${template.source} failed: ${(err as Error).message}`,
      template.source,
    );
  }
}
