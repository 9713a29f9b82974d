/** The final evaluation of a Hugging Face run: its agent on a split, through the rollout system, as `rollout --json` reports it. */
import type { HfPolicy } from '../../../policy/hf/agent/index.ts';
import type { RolloutSummary } from '../../../streams/events.ts';
import { createRolloutSystem } from '../../rollout-system.ts';
import type { EvaluationRequest } from '../run-model.ts';

export async function evaluateHf(request: EvaluationRequest & { readonly agent: HfPolicy }): Promise<RolloutSummary> {
  const system = createRolloutSystem({
    env: request.env, agent: request.agent, split: request.split,
    ...(request.episodes !== undefined ? { episodes: request.episodes } : {}),
    concurrency: request.concurrency, schedule: `fixed:${request.horizon}`, seed: request.seed, runId: `eval-${request.split}`,
  });
  const forwarding = request.events?.next ? system.events.subscribe({ next: (e) => request.events?.next?.(e) }) : undefined;
  const stop = () => system.stop('evaluation stopped');
  try {
    const running = system.run();
    if (request.signal?.aborted) stop();
    else request.signal?.addEventListener('abort', stop, { once: true });
    return await running;
  } finally {
    request.signal?.removeEventListener('abort', stop);
    forwarding?.unsubscribe();
    request.agent.dispose();
  }
}
