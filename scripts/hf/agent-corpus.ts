/**
 * The text a small agent model's tokenizer is trained on (scripts/hf/make-agent-model.py
 * --corpus): for train tasks of the text env families, each env's prompt as its LLM agent renders
 * it (system message, first turn, later turns) and the replies it asks for (every listed action
 * written with `formatReply`), from episodes of a random agent. Train split only, so the test
 * tasks' entities are not tokenised specially. Deterministic (seeded).
 *
 *   npx tsx scripts/hf/agent-corpus.ts --out /tmp/agent-corpus.json [--tasks 60] [--turns 8]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { promptOf } from '../../envs/contract.ts';
import { getEnv } from '../../envs/index.ts';
import { mulberry32 } from '../../policy/rng.ts';

const { values } = parseArgs({ options: { out: { type: 'string' }, tasks: { type: 'string', default: '60' }, turns: { type: 'string', default: '8' }, envs: { type: 'string', default: 'babyai,textcraft,sciworld,search' } } });
if (values.out === undefined) throw new Error('--out FILE is required');
const strings: string[] = [];
const rng = mulberry32(7);
for (const id of values.envs!.split(',')) {
  const env = getEnv(id);
  const prompt = promptOf(env);
  if (prompt.system !== undefined) strings.push(prompt.system);
  const tasks = env.tasks('train').slice(0, Number(values.tasks));
  for (const [i, taskId] of tasks.entries()) {
    const instance = env.make();
    const reset = await instance.reset({ taskId, seed: i });
    strings.push(prompt.firstTurn(reset.observation, reset.info.availableActions));
    let actions = reset.info.availableActions ?? [];
    for (let t = 0; t < Number(values.turns) && actions.length > 0; t++) {
      for (const a of actions) strings.push(prompt.formatReply('I choose the next step.', a));
      const next = await instance.step(actions[Math.floor(rng.next() * actions.length)]!);
      if (next.terminated || next.truncated) break;
      strings.push(prompt.nextTurn(next.observation, next.info.availableActions));
      actions = next.info.availableActions ?? [];
    }
    await instance.close?.();
  }
  console.error(`${id}: ${tasks.length} tasks`);
}
writeFileSync(values.out, JSON.stringify(strings));
console.error(`${values.out}: ${strings.length} strings, ${strings.reduce((a, s) => a + s.length, 0)} characters`);
