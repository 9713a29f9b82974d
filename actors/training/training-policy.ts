/** Step 2 of a training run: the agent the rollouts decode with, behind the run's observation filter. */
import type { EnvDefinition } from '../../envs/contract.ts';
import { FilteredPolicy } from '../../policy/observation-filter.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';
import type { CheckpointData } from '../../learner/checkpoint/format.ts';
import type { RunModels } from '../../learner/run-models.ts';
import { contextOptions, type TrainingConfig } from '../../learner/training-config.ts';
import { symmetriesOf } from './symmetries.ts';

export interface TrainingPolicy {
  /** Decodes with the agent's model; gets each new version by `setWeights`. */
  readonly agent: TransformerPolicy;
  /** What the rollouts call: the agent behind the filter, recording each episode's token windows. */
  readonly policy: FilteredPolicy;
}

export function trainingPolicy(env: EnvDefinition, models: RunModels, config: TrainingConfig, resumed: CheckpointData | undefined): TrainingPolicy {
  const agent = new TransformerPolicy(models.agentModel, models.tokenizer, { temperature: config.temperature, ...contextOptions(config) });
  const policy = new FilteredPolicy(agent, config.observation, {
    record: true,
    hide: config.hiddenActions,
    ...(config.relabel === true ? { relabel: symmetriesOf(env) } : {}),
  });
  if (resumed) agent.setWeights(resumed.state.policyVersion, models.model.getWeights());
  return { agent, policy };
}
