/**
 * A policy wrapper that turns an endpoint failure into the end of the batch: when a call fails
 * after the LLM client's own retries (refused, 5xx, deadlines, a 4xx), the endpoint is down or
 * refuses the model, and retrying the episode elsewhere cannot help (every episode calls the same
 * endpoint). `onFailure` is told once; the episode still ends aborted as the rollout system has it.
 */
import type { ActRequest, Decision, Policy } from '../../policy/policy.ts';
import { PolicyWrapper } from '../../policy/policy-wrapper.ts';
import { LlmError, type LlmErrorCode } from '../../policy/llm/llm-error.ts';

const ENDPOINT_DOWN: ReadonlySet<LlmErrorCode> = new Set(['LLM_UNAVAILABLE', 'LLM_UNREACHABLE', 'LLM_TIMEOUT', 'LLM_REJECTED']);

export class FailFastPolicy extends PolicyWrapper {
  #told = false;

  constructor(
    inner: Policy,
    private readonly onFailure: (error: LlmError) => void,
  ) {
    super(inner);
  }

  override async act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    try {
      return await this.inner.act(batch);
    } catch (error) {
      if (error instanceof LlmError && ENDPOINT_DOWN.has(error.code) && !this.#told) {
        this.#told = true;
        this.onFailure(error);
      }
      throw error;
    }
  }
}
