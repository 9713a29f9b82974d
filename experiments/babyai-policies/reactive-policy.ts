/**
 * A training diagnostic, not a benchmark: a hand-written REACTIVE policy on BabyAI's test split.
 * It reads only the goal line and the current action list (what the history-0 transformer sees):
 * take the go-to / pickup / toggle action that names the goal object when there is one, else a
 * random door, turn or move. It shows which families a memoryless copy-and-explore skill solves
 * and which need memory or planning (docs/training-babyai.md).
 *
 *   npx tsx experiments/babyai-policies/reactive-policy.ts [HORIZON] [SPLIT]   (default 20 test)
 */
import { getEnv } from '../../envs/index.ts';
import { actionsNaming, lcg, searchAction } from './babyai-heuristic.ts';
const env: any = getEnv('babyai');
const H = Number(process.argv[2] ?? 20);
const split = process.argv[3] ?? 'test';
const rand = lcg();
function parse(goal: string) {
  return goal.split(/,? and |, then | after you /).map((g) => {
    const m = /(go to|pick up|open|put) (?:the|a) ?(red|green|blue|purple|yellow|grey)? ?(ball|box|key|door)/.exec(g);
    const m2 = /next to (?:the|a) ?(red|green|blue|purple|yellow|grey)? ?(ball|box|key|door)/.exec(g);
    return m ? { verb: m[1]!, color: m[2], type: m[3]!, next: m2 ? { color: m2[1], type: m2[2]! } : undefined } : undefined;
  });
}
const byFam: Record<string, number[]> = {};
for (const id of env.tasks(split)) {
  const inst = env.make(); let r: any = await inst.reset({ taskId: id, seed: 0 });
  const subs = parse(r.observation.split('\n')[0].replace('Your goal: ', '')); let carrying = false;
  let ok = false;
  for (let t = 0; t < H; t++) {
    const acts: string[] = r.info.availableActions;
    // Memoryless: always the first sub-goal (sequences need memory, which this policy lacks).
    const sg = subs[0];
    const match = (o: { color?: string | undefined; type: string }, prefix: string) => actionsNaming(acts, prefix, { color: o.color, type: o.type });
    let a: string | undefined;
    if (sg) {
      if (sg.verb === 'go to') a = match(sg, 'go to')[0];
      else if (sg.verb === 'pick up') a = match(sg, 'pickup')[0];
      else if (sg.verb === 'open') a = match(sg, 'toggle')[0];
      else if (sg.verb === 'put') { if (!carrying) a = match(sg, 'pickup')[0]; else if (sg.next) { const g = match(sg.next, 'go to')[0]; a = g && acts.includes('drop') ? (t % 2 ? 'drop' : g) : g; } }
    }
    if (a?.startsWith('pickup')) carrying = true;
    if (!a) a = searchAction(acts, rand);
    r = await inst.step(a!);
    if (r.terminated || r.truncated) { ok = !!r.info.success; break; }
  }
  const fam = id.split('/')[0]; (byFam[fam] ??= []).push(ok ? 1 : 0);
}
let tot = 0, n = 0; for (const [f, v] of Object.entries(byFam)) { const s = v.reduce((a, b) => a + b, 0); tot += s; n += v.length; console.log(f, s + '/' + v.length); }
console.log('horizon', H, 'success', (tot / n).toFixed(3), `(${tot}/${n})`);
