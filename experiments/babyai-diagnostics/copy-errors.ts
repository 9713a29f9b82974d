/**
 * A diagnostic of BabyAI runs, not a benchmark: in the episodes of a run's trajectories whose goal
 * is one `go to` / `pick up` of a visible object (one action can solve it), what did the first
 * action do? Counts per block of learner steps: successes, a wrong object or verb (and the most common
 * goal → action pairs among those), or no object at all. docs/training-babyai.md reads it.
 *
 *   npx tsx experiments/babyai-diagnostics/copy-errors.ts RUN_DIR [STEPS_PER_BLOCK]
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [run, blockArg = '10'] = process.argv.slice(2);
if (run === undefined) throw new Error('usage: npx tsx experiments/babyai-diagnostics/copy-errors.ts RUN_DIR [STEPS_PER_BLOCK]');
const block = Number(blockArg);
const dir = path.join(run, 'trajectories');
const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();

const GOAL = /^(go to|pick up) (?:the|a) ?(red|green|blue|purple|yellow|grey)? ?(ball|box|key|door)$/;

interface Episode {
  firstObservation: string;
  outcome: string;
  steps: { action: string }[];
}

/** The first action solves the goal when it goes to / picks up an object of the goal's colour and type. */
function solving(goal: RegExpExecArray, action: string): boolean {
  const verbs = goal[1] === 'go to' ? ['go to', 'pickup'] : ['pickup'];
  return verbs.some((v) => action.startsWith(`${v} `)) && (goal[2] === undefined || action.includes(` ${goal[2]} `)) && new RegExp(`\\b${goal[3]} \\d+$`).test(action);
}

for (let start = 0; start < files.length; start += block) {
  const counts: Record<string, number> = { success: 0, 'wrong target': 0, 'no object': 0 };
  const wrong = new Map<string, number>();
  for (const file of files.slice(start, start + block)) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const e = JSON.parse(line) as Episode;
      const goal = GOAL.exec(e.firstObservation.split('\n')[0]!.replace('Your goal: ', ''));
      const listed = /Available actions: (\[.*\])/.exec(e.firstObservation);
      if (goal === null || listed === null || e.steps.length === 0) continue;
      if (!(JSON.parse(listed[1]!) as string[]).some((a) => solving(goal, a))) continue;
      const action = e.steps[0]!.action;
      if (e.outcome === 'success') counts.success! += 1;
      else if (/^(go to|pickup|toggle)/.test(action)) {
        counts['wrong target']! += 1;
        const key = `${goal[0]} → ${action}`;
        wrong.set(key, (wrong.get(key) ?? 0) + 1);
      } else counts['no object']! += 1;
    }
  }
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const top = [...wrong].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, n]) => `${k} (${n})`).join('; ');
  console.log(`steps ${start + 1}-${Math.min(start + block, files.length)}: ${total} one-action episodes, success ${(counts.success! / total).toFixed(2)}, wrong target ${(counts['wrong target']! / total).toFixed(2)}, no object ${(counts['no object']! / total).toFixed(2)}${top ? ` | most common: ${top}` : ''}`);
}
