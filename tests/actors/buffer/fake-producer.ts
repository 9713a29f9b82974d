/** A producer for buffer tests: offers empty groups of the work it is given, at a version it is told. */
import type { Producer, StepWork } from '../../../actors/buffer/producer.ts';
import type { TrajectoryGroup } from '../../../learner/trajectory-group.ts';

export function group(step: number, index: number, policyVersion: number, producer = 'fake'): TrajectoryGroup {
  return { step, index, taskId: `t${index}`, horizon: 3, policyVersion, producer, episodes: [], results: [] };
}

export class FakeProducer implements Producer {
  readonly name = 'fake';
  version = 0;
  /** Each `produce` call: the work and the version it sampled with. */
  readonly calls: { step: number; groups: readonly number[]; version: number }[] = [];

  /** `versionOf` picks the version a group is offered with (default: the producer's at the start of the work). */
  constructor(
    readonly currentVersion: () => number,
    readonly versionOf: (step: number, index: number, version: number) => number = (_s, _i, v) => v,
    readonly delayMs = 2,
  ) {}

  async produce(work: StepWork, offer: (g: TrajectoryGroup) => void): Promise<void> {
    this.version = this.currentVersion();
    this.calls.push({ step: work.step, groups: work.groups, version: this.version });
    for (const index of work.groups) {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      offer(group(work.step, index, this.versionOf(work.step, index, this.version)));
    }
  }
}
