import { Option, type Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { createSftSystem, type SftOptions, type SftSummary } from '../../actors/sft-system.ts';
import { getPreset, presets, withPreset } from '../../actors/training/presets.ts';
import { sftDefaults } from '../../actors/sft/sft-settings.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend.ts';
import { addModelOptions, givenModelConfig, type ModelCliOptions } from '../model-options.ts';
import { nonNegativeInt, nonNegativeNumber, percent, positiveInt, positiveNumber, printJson, table } from '../output.ts';
import { addDashboardOptions, serveTrainingDashboard, type DashboardCliOptions } from './dashboard.ts';
import { defaultRunDir } from './train.ts';

interface SftCliOptions extends DashboardCliOptions, ModelCliOptions {
  env: string;
  demos: string[];
  out?: string;
  resume?: string;
  preset?: string;
  epochs?: number;
  lr?: number;
  minibatch?: number;
  validationShare?: number;
  evalEvery?: number;
  evalEpisodes?: number;
  evalTemperature?: number;
  evalHorizon?: number;
  includeFailures?: boolean;
  seed?: number;
  concurrency?: number;
  backend: BackendPreference;
  learnerThreads?: string;
  maxMinutes?: number;
  json?: boolean;
}

export function registerSft(program: Command): void {
  const command = addDashboardOptions(program.command('sft'))
    .description('supervised fine-tuning (behaviour cloning) of the transformer agent on demonstrations from `collect` (or AgentTraj files); writes a checkpoint `train --init` and `eval --checkpoint` read')
    .option('--env <id>', 'environment id', 'babyai')
    .requiredOption('--demos <file>', 'demonstrations: JSON lines from `actorgym collect`, or AgentGym AgentTraj JSON/JSONL (repeatable)', (f: string, all: string[] = []) => [...all, f])
    .option('--out <dir>', 'run directory (default runs/<timestamp>, or the resumed run\'s)')
    .option('--resume <dir>', 'continue an SFT run from its checkpoint at the next epoch (the same demos and settings)')
    .option('--preset <name>', `take the model and context settings of a training preset (${Object.keys(presets).join(', ')}), so RL can continue from the checkpoint with the same preset`)
    .option('--epochs <n>', `passes over the demos (default ${sftDefaults.epochs})`, positiveInt('--epochs'))
    .option('--lr <lr>', `Adam learning rate (default ${sftDefaults.lr})`, positiveNumber('--lr'))
    .option('--minibatch <n>', `context windows per Adam step (default ${sftDefaults.minibatch})`, positiveInt('--minibatch'))
    .option('--validation-share <x>', `share of the demos' tasks held out for the validation loss (default ${sftDefaults.validationShare})`, nonNegativeNumber('--validation-share'))
    .option('--eval-every <k>', `test evaluation every K epochs, 0 = only at the end (default ${sftDefaults.evalEvery})`, nonNegativeInt('--eval-every'))
    .option('--eval-episodes <n>', 'test episodes per evaluation, 0 = none (default: the whole test split)', nonNegativeInt('--eval-episodes'))
    .option('--eval-temperature <t>', 'evaluation temperature, 0 = greedy (default 1)', nonNegativeNumber('--eval-temperature'))
    .option('--eval-horizon <n>', 'evaluation horizon (default: the env default)', positiveInt('--eval-horizon'))
    .option('--include-failures', 'also clone demos that did not succeed (default: successes only)')
    .option('--seed <n>', 'run seed: tokenizer corpus, initial weights, shuffles, validation split (default 0)', nonNegativeInt('--seed'))
    .option('--concurrency <n>', 'episodes at once in the test evaluation (default 64)', positiveInt('--concurrency'))
    .addOption(new Option('--backend <backend>', 'tfjs backend').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .addOption(new Option('--learner-threads <n>', 'threads for the gradients (default: 2 on wasm with two or more cores, else 1)').choices(['1', '2']))
    .option('--max-minutes <m>', 'time budget: stop after the epoch that reaches it (checkpoint and test evaluation included)', positiveNumber('--max-minutes'))
    .option('--json', 'print one JSON object with the summary on stdout');
  addModelOptions(command);
  command.action(async (o: SftCliOptions, cmd: Command) => {
    const preset = o.preset !== undefined ? getPreset(o.preset) : undefined;
    const given = (key: keyof SftCliOptions) => cmd.getOptionValueSource(key) === 'cli';
    // A preset contributes the policy's shape (model, context, observation), not its RL settings.
    const { steps: _s, algo: _a, schedule: _sc, tasksPerStep: _t, groupSize: _g, epochs: _e, minibatch: _m, lr: _l, entropyCoef: _ec, stdNorm: _sn, checkpointEvery: _ce, ...shape } = preset ?? {};
    const options: SftOptions = {
      ...withPreset(preset ? shape : undefined, givenModelConfig(cmd, o)),
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
    const summary = await runSft(options, o);
    if (o.json) printJson(summary);
    else printSftSummary(summary);
  });
}

/** Runs SFT with progress on stderr and SIGINT as a stop at the next update. */
export async function runSft(options: SftOptions, dashboardOptions: DashboardCliOptions = {}): Promise<SftSummary> {
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
  const interrupt = () => {
    write('stopping at the next update (the last whole epoch\'s checkpoint is kept; continue with --resume)…');
    sft.stop('interrupted (SIGINT)');
  };
  process.once('SIGINT', interrupt);
  try {
    return await sft.run();
  } finally {
    process.off('SIGINT', interrupt);
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
        ['train loss', 'validation loss', 'test success', 'test mean reward'],
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
