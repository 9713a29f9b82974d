/**
 * `--format tokens` of `rollout` and `collect`: the agent wrapped so each episode's token ids are
 * kept (demos/token-recording-policy.ts), and each scored episode made a token record
 * (demos/token-record-of.ts) — streamed as episodes finish (rollout) or written whole (collect).
 */
import type { Demo } from '../demos/demo.ts';
import { tokenRecordOf } from '../demos/token-record-of.ts';
import type { TokenRecord } from '../demos/token-record.ts';
import { TokenRecordingPolicy } from '../demos/token-recording-policy.ts';
import type { EnvDefinition, Split } from '../envs/contract.ts';
import type { EpisodeOutput } from '../machines/episode-record.ts';
import type { ResolvedAgent } from './agent-spec.ts';

/** The agent wrapped to keep its token records; refused for an agent that keeps none. */
export function tokenRecorder(agent: ResolvedAgent, agentText: string): TokenRecordingPolicy {
  if (agent.keepsTokens !== true || typeof agent.spec === 'string') {
    throw new Error(`--format tokens needs an agent that keeps its token ids: checkpoint:DIR, hf:DIR, or openai:MODEL with --tokenizer hf:DIR (not --agent ${agentText}${agentText.startsWith('openai:') ? ' without --tokenizer' : ''})`);
  }
  return new TokenRecordingPolicy(agent.spec);
}

/** Where the run is: the env and split (a task's group is its index in the split). */
export interface RecordPlace {
  readonly env: EnvDefinition;
  readonly split: Split;
}

function kept(recorder: TokenRecordingPolicy, episodeId: string) {
  const record = recorder.take(episodeId);
  if (record === undefined) throw new Error(`episode ${episodeId} finished but its policy handed back no token ids`);
  return record;
}

/** A rollout's finished episode as a token record; undefined for an aborted one (never written). */
export function recordOfOutput(output: EpisodeOutput, recorder: TokenRecordingPolicy, place: RecordPlace): TokenRecord | undefined {
  if (output.outcome === 'aborted') {
    recorder.take(output.episodeId);
    return undefined;
  }
  const tasks = place.env.tasks(place.split);
  const { trajectory, version } = kept(recorder, output.episodeId);
  return tokenRecordOf({
    env: place.env.spec.id, split: place.split, taskId: output.taskId,
    group: tasks.indexOf(output.taskId), sample: Math.floor(output.slot / tasks.length),
    episodeId: output.episodeId, policy: { name: recorder.name, version }, horizon: output.maxTurns,
    outcome: output.outcome, reward: output.reward, turns: output.trajectory, trajectory,
  });
}

/** A collected demo as a token record. */
export function recordOfDemo(demo: Demo, recorder: TokenRecordingPolicy, place: RecordPlace, horizon: number): TokenRecord {
  const { trajectory, version } = kept(recorder, demo.episodeId);
  return tokenRecordOf({
    env: place.env.spec.id, split: place.split, taskId: demo.taskId,
    group: place.env.tasks(place.split).indexOf(demo.taskId), sample: demo.sample,
    episodeId: demo.episodeId, policy: { name: recorder.name, version }, horizon,
    outcome: demo.outcome, reward: demo.reward, turns: demo.turns, trajectory,
  });
}
