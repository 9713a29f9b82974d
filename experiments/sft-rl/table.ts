/**
 * The SFT → RL table (docs/training-sft.md) from the JSON summaries run.sh wrote: test success
 * (and mean reward) of random, SFT and SFT → RL, mean ± sample std over seeds, per env.
 *
 *   npx tsx experiments/sft-rl/table.ts [runs/sft-rl] [babyai textcraft sciworld search]
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [root = 'runs/sft-rl', ...envArgs] = process.argv.slice(2);
const envs = envArgs.length > 0 ? envArgs : ['babyai', 'textcraft', 'sciworld', 'search'];

type Summary = Record<string, unknown>;
/** A finished run's summary; undefined while it runs (its file is still empty) or when it never ran. */
function read(file: string): Summary | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8').trim();
  return text === '' ? undefined : (JSON.parse(text) as Summary);
}

function stats(xs: readonly number[]): string {
  if (xs.length === 0) return '–';
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return `${(100 * mean).toFixed(1)} ± ${(100 * sd).toFixed(1)}`;
}

/** Success and mean reward of a summary: a rollout's, or a training/SFT run's test evaluation. */
function scores(s: Summary | undefined): { success?: number | undefined; reward?: number | undefined; seconds?: number | undefined } {
  if (s === undefined) return {};
  if (typeof s.successRate === 'number') return { success: s.successRate, reward: s.meanReward as number };
  return { success: s.testSuccessRate as number | undefined, reward: s.testMeanReward as number | undefined, seconds: s.trainSeconds as number | undefined };
}

const rows: string[] = ['| env | random | SFT | SFT → RL (GRPO) | random, mean reward | SFT, mean reward | SFT → RL, mean reward | seeds (SFT / RL) | SFT / RL minutes per seed |', '|---|---|---|---|---|---|---|---|---|'];
for (const env of envs) {
  const dir = path.join(root, env);
  const seeds = [0, 1, 2].filter((s) => read(path.join(dir, `sft-s${s}.json`)) !== undefined);
  const of = (kind: string) => seeds.map((s) => scores(read(path.join(dir, `${kind}-s${s}.json`))));
  const [random, sft, rl] = [of('random'), of('sft'), of('rl')];
  const col = (xs: { success?: number | undefined; reward?: number | undefined }[], key: 'success' | 'reward') => stats(xs.map((x) => x[key]).filter((v): v is number => typeof v === 'number'));
  const minutes = (xs: { seconds?: number | undefined }[]) => {
    const s = xs.map((x) => x.seconds).filter((v): v is number => typeof v === 'number');
    return s.length > 0 ? (s.reduce((a, b) => a + b, 0) / s.length / 60).toFixed(1) : '–';
  };
  rows.push(`| ${env} | ${col(random, 'success')} | ${col(sft, 'success')} | ${col(rl, 'success')} | ${col(random, 'reward')} | ${col(sft, 'reward')} | ${col(rl, 'reward')} | ${seeds.join(', ')} / ${seeds.filter((x) => read(path.join(dir, `rl-s${x}.json`)) !== undefined).join(', ')} | ${minutes(sft)} / ${minutes(rl)} |`);
}
console.log(rows.join('\n'));
