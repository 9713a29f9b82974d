/**
 * The default endpoint of an `openai:MODEL` agent, apart from create-llm-policy.ts so that
 * `--help` can print it without loading the OpenAI client.
 */

/** The endpoint when neither the options nor OPENAI_BASE_URL name one (vLLM's default port). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8000/v1';
