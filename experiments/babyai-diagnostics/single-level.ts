/**
 * A training diagnostic, not a benchmark: GRPO on the train tasks of one BabyAI level (or `all`),
 * printing success every 5 steps and the mean of the last 10. It separates "the learner cannot
 * learn" from "the level mix is hard" (docs/training-babyai.md).
 *
 *   npx tsx experiments/babyai-diagnostics/single-level.ts LEVEL [OPTIONS_JSON] [SCHEDULE] [OUT|-] [STEPS]
 *   npx tsx experiments/babyai-diagnostics/single-level.ts GoToLocalS8N7 '{"historyTurns":0,"instructionTokens":24}' fixed:3 - 40
 * OPTIONS_JSON may set evalEpisodes (e.g. "all") with evalHorizon/evalTemperature to end with a test-split score.
 */
import { getEnv } from '../../envs/index.ts';
import { createTrainingSystem } from '../../actors/training-system.ts';
const [level = 'GoToLocalS8N7', extraJson = '{}', schedule = 'fixed:1', out, stepsArg = '40'] = process.argv.slice(2);
const base = getEnv('babyai');
const env = level === 'all' ? base : { ...base, tasks: (s: any) => base.tasks(s).filter((t: string) => t.startsWith(level + '/')) };
const extra = JSON.parse(extraJson);
const t = createTrainingSystem({ env, algo: 'grpo', schedule, steps: Number(stepsArg), tasksPerStep: 16, groupSize: 8, concurrency: 128,
  model: { dModel: 64, nHeads: 2, dFF: 256 }, epochs: 2, minibatch: 32, lr: 1e-3, stdNorm: false, entropyCoef: 0.02, evalEpisodes: 0, checkpointEvery: 0, ...(out && out !== '-' ? { out } : {}), ...extra });
const t0 = Date.now(); const succ: number[] = [];
t.events.subscribe((e: any) => { if (e.type === 'learner.stepped') { const m = e.metrics; succ.push(m.successRate); if (m.step % 5 === 0) console.log(m.step, 'h', m.horizon, m.successRate.toFixed(2), 'turns', m.meanTurns.toFixed(2), 'ent', m.entropy.toFixed(3), ((Date.now()-t0)/1000).toFixed(0)+'s'); } });
const summary = await t.run();
const last = succ.slice(-10); console.log('RESULT', extraJson, schedule, 'last10', (last.reduce((a,b)=>a+b,0)/last.length).toFixed(3), 'test', summary.testSuccessRate?.toFixed(3) ?? '-', ((Date.now()-t0)/1000).toFixed(0)+'s');
