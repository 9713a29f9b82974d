/** What `actorgym sft` does (its options are in sft.ts). */
import type { Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { createSftSystem, type SftOptions, type SftSummary } from '../../actors/sft-system.ts';
import { getPreset, withPreset } from '../../actors/training/presets.ts';
import { defaultRunDir } from '../default-run-dir.ts';
import { INTERRUPTED_EXIT_CODE, interruptReason, onInterrupt } from '../interrupt.ts';
import { refuseExistingRun } from '../existing-run-guard.ts';
import { givenModelConfig } from '../model-options.ts';
import { givenPolicyConfig, policyOfCheckpoint } from '../policy-options.ts';
import { percent, printJson, table } from '../output.ts';
import { serveTrainingDashboard } from '../training-dashboard.ts';
import { checkDashboardHost, type DashboardCliOptions } from './dashboard.ts';
import type { SftCliOptions } from './sft.ts';

export async function runSftCommand(o: SftCliOptions, cmd: Command): Promise<void> {
  // Before anything starts: a run in --out is never started over (issue 40, finding 3).
  await refuseExistingRun({ command: 'sft', out: o.out, resume: o.resume });
  checkDashboardHost(o);
  o.policy ??= await policyOfCheckpoint(o.resume);
  const preset = o.preset !== undefined ? getPreset(o.preset) : undefined;
  const given = (key: keyof SftCliOptions) => cmd.getOptionValueSource(key) === 'cli';
  // A preset contributes the policy's shape (model, context, observation), not its RL settings.
  const { steps: _s, algo: _a, schedule: _sc, tasksPerStep: _t, groupSize: _g, epochs: _e, minibatch: _m, lr: _l, entropyCoef: _ec, stdNorm: _sn, checkpointEvery: _ce, ...shape } = preset ?? {};
  const options: SftOptions = {
    ...withPreset(preset ? shape : undefined, { ...givenModelConfig(cmd, o), ...givenPolicyConfig(o) }),
    env: o.env,
    demos: o.demos,
    out: o.out ?? (o.resume === undefined ? defaultRunDir() : undefined),
    ...(o.resume !== undefined ? { resume: o.resume } : {}),
    ...(o.epochs !== undefined ? { epochs: o.epochs } : {}),
    ...(o.lr !== undefined ? { lr: o.lr } : {}),
    ...(o.minibatch !== undefined ? { minibatch: o.minibatch } : {}),
    ...(o.validationShare !== undefined ? { validationShare: o.validationShare } : {}),
    ...(o.evalEvery !== undefined ? { evalEvery: o.evalEvery } : {}),
    ...(o.evalEpisodes !== undefined ? { evalEpisodes: o.evalEpisodes } : {}),
    ...(given('evalTemperature') ? { evalTemperature: o.evalTemperature } : {}),
    ...(given('evalHorizon') ? { evalHorizon: o.evalHorizon } : {}),
    ...(given('seed') ? { seed: o.seed } : {}),
    ...(given('concurrency') ? { concurrency: o.concurrency } : {}),
    onlySuccess: o.includeFailures !== true,
    backend: o.backend,
    ...(o.learnerThreads !== undefined ? { learnerThreads: Number(o.learnerThreads) } : {}),
    ...(o.maxMinutes !== undefined ? { maxMinutes: o.maxMinutes } : {}),
  } as SftOptions;
  const { summary, interrupted } = await runSft(options, o);
  if (o.json) printJson(summary);
  else printSftSummary(summary);
  if (interrupted) process.exitCode = INTERRUPTED_EXIT_CODE;
}

/** Runs SFT with progress on stderr and SIGINT or SIGTERM as a stop at the next update (the last whole epoch's checkpoint is kept). */
export async function runSft(options: SftOptions, dashboardOptions: DashboardCliOptions = {}): Promise<{ summary: SftSummary; interrupted: boolean }> {
  const sft = createSftSystem(options);
  const dashboard = await serveTrainingDashboard(sft.events, dashboardOptions);
  const write = (line: string) => process.stderr.write(`${line}\n`);
  let bar: SingleBar | undefined;
  const progress = sft.events.subscribe((event) => {
    if (event.type === 'training.started') {
      write(`backend: ${event.backend} · SFT on ${event.env} · ${event.parameters.toLocaleString('en-US')} parameters, vocabulary ${event.vocabSize}` +
        (event.out ? ` · run dir ${event.out}` : '') + (event.fromStep > 0 ? ` · resumed after epoch ${event.fromStep}` : ''));
      if (process.stderr.isTTY) {
        bar = new SingleBar({ stream: process.stderr, format: ' {bar} epoch {value}/{total} | loss {loss} | val {val} | test {test} | ETA {eta_formatted}', hideCursor: true });
        bar.start(event.targetSteps, event.fromStep, { loss: '-', val: '-', test: '-' });
      }
    } else if (event.type === 'learner.stepped') {
      const m = event.metrics;
      const fields = { loss: (m.loss ?? 0).toFixed(4), val: Number.isFinite(m.valLoss) ? (m.valLoss ?? 0).toFixed(4) : '-', test: m.testSuccessRate !== undefined ? percent(m.testSuccessRate) : '-' };
      if (bar) bar.update(event.step, fields);
      else write(`epoch ${event.step} loss ${fields.loss} val ${fields.val} test ${fields.test} updates ${m.updates} t ${(m.seconds ?? 0).toFixed(0)}s`);
    } else if (event.type === 'training.finished') {
      bar?.stop();
      bar = undefined;
      write(`SFT ${event.status} after epoch ${event.steps}${event.reason !== undefined ? ` (${event.reason})` : ''}`);
    }
  });
  const interrupt = onInterrupt('stopping at the next update (the last whole epoch\'s checkpoint is kept; continue with --resume)', (signal) => sft.stop(interruptReason(signal)));
  try {
    const summary = await sft.run();
    return { summary, interrupted: interrupt.interrupted };
  } finally {
    interrupt.dispose();
    progress.unsubscribe();
    bar?.stop();
    await dashboard.close();
  }
}

function printSftSummary(s: SftSummary): void {
  console.log(
    `${s.env}, SFT, ${s.epochs} epochs (${s.status}) on tfjs-${s.backend} in ${s.trainSeconds.toFixed(0)} s; ` +
      `${s.demos.trained} demos trained, ${s.demos.validation} validation, ${s.demos.skipped} skipped, ${s.demos.rows} windows\n` +
      table([
        ['train loss', 'validation loss', 'test success rate', 'test mean reward'],
        [
          s.trainLoss !== undefined ? s.trainLoss.toFixed(4) : '-',
          s.valLoss !== undefined ? s.valLoss.toFixed(4) : '-',
          s.testSuccessRate !== undefined ? percent(s.testSuccessRate) : '-',
          s.testMeanReward !== undefined ? s.testMeanReward.toFixed(3) : '-',
        ],
      ]),
  );
  if (s.out) console.log(`\nrun: ${s.out}\ncheckpoint: ${s.checkpoint ?? '-'}\nmetrics: ${s.metricsFile ?? '-'}\nnext: npx actorgym train --env ${s.env} --init ${s.checkpoint ?? s.out} …`);
  if (s.status === 'stopped' && s.out) console.log(`resume: npx actorgym sft --env ${s.env} ${s.sft.demos.map((d) => `--demos ${d}`).join(' ')} --resume ${s.out}`);
}
