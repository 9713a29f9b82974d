/**
 * A training diagnostic, not a benchmark: a hand-written policy on BabyAI that reads what the
 * transformer reads with `--history-turns N --history-actions-only`: the goal line, the current
 * view's action list and carrying line, and its own past actions. Against experiments/babyai-policies/reactive-policy.ts
 * (no memory) it shows what a memory of past actions is worth, level by level: sequences of
 * sub-goals and "put X next to Y". Its search is the reactive policy's, so memory is the only
 * difference.
 *
 *   npx tsx experiments/babyai-policies/memory-policy.ts [HORIZON] [SPLIT]   (default 20 test)
 */
import { getEnv } from '../../envs/index.ts';
import { actionsNaming as named, lcg, printByLevel, searchAction, subGoals } from './babyai-heuristic.ts';

const env = getEnv('babyai');
const H = Number(process.argv[2] ?? 20);
const split = (process.argv[3] ?? 'test') as 'train' | 'test';

const rand = lcg();

const byLevel = new Map<string, number[]>();
for (const taskId of env.tasks(split)) {
  const instance = env.make();
  let result = await instance.reset({ taskId, seed: 0 });
  const goals = subGoals(result.observation.split('\n')[0]!.replace('Your goal: ', ''));
  const past: string[] = [];
  let at = 0;
  let ok = false;
  for (let t = 0; t < H && at < goals.length; t++) {
    const actions = result.info.availableActions ?? [];
    const carrying = / You are carrying a (\w+) (\w+)\./.exec(result.observation);
    const g = goals[at]!;
    let action: string | undefined;
    let done = false;
    if (g.verb === 'go to') [action, done] = [named(actions, 'go to', g.obj)[0], true];
    else if (g.verb === 'open') [action, done] = [named(actions, 'toggle', g.obj)[0], true];
    else if (g.verb === 'pick up') {
      if (carrying && actions.includes('drop')) action = 'drop'; // hands must be free
      else [action, done] = [named(actions, 'pickup', g.obj)[0], true];
    } else if (g.verb === 'put' && g.next) {
      if (!carrying) action = named(actions, 'pickup', g.obj)[0];
      else if (past.at(-1)?.startsWith('go to') && actions.includes('drop')) [action, done] = ['drop', true];
      else action = named(actions, 'go to', g.next)[0];
    }
    if (action === undefined) {
      // Search as experiments/babyai-policies/reactive-policy.ts does, so that memory is the only difference.
      done = false;
      action = searchAction(actions, rand);
    }
    const stepped = await instance.step(action);
    result = stepped;
    past.push(action);
    if (done) at += 1;
    if (stepped.terminated || stepped.truncated) {
      ok = stepped.info.success === true;
      break;
    }
  }
  await instance.close();
  const level = taskId.split('/')[0]!;
  byLevel.set(level, [...(byLevel.get(level) ?? []), ok ? 1 : 0]);
}
const { solved, total } = printByLevel(byLevel);
console.log(`horizon ${H} success ${(solved / total).toFixed(3)} (${solved}/${total})`);
