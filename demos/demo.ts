/**
 * A demonstration: one episode of an agent, as JSON lines (`actorgym collect`), with what SFT
 * needs to replay it turn by turn in the policy's own layout (learner/sft/demo-rows.ts).
 */
import { z } from 'zod';

export const DemoTurnSchema = z.object({
  /** The observation the agent acted on (raw env text, before any policy-side filter). */
  observation: z.string(),
  /** The env's action list at that turn, when it lists one. */
  availableActions: z.array(z.string()).optional(),
  action: z.string(),
  /** The step's reward. */
  reward: z.number(),
});

export const DemoSchema = z.object({
  format: z.literal('actorgym-demo'),
  version: z.literal(1),
  env: z.string().min(1),
  split: z.enum(['train', 'test', 'test-templates']),
  taskId: z.string().min(1),
  sample: z.int().min(0),
  agent: z.string(),
  seed: z.number(),
  episodeId: z.string(),
  outcome: z.enum(['success', 'failure', 'truncated']),
  reward: z.number(),
  turns: z.array(DemoTurnSchema),
  finalObservation: z.string(),
});

/** One turn of a demonstration: the observation (and the actions it listed), the action taken and the env's reward. */
export type DemoTurn = z.infer<typeof DemoTurnSchema>;
/** One demonstration (one JSON line of `actorgym collect`): the env, split, task, sample, agent and seed, the outcome and reward, and its turns as the agent saw and acted them. */
export type Demo = z.infer<typeof DemoSchema>;
