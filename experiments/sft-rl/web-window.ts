/**
 * Why the web SFT policy cannot succeed at context 384: how often the [id] an oracle demo acts on
 * lies inside the first N tokens of its (objective-first) observation, the part a window keeps.
 *   npx tsx experiments/sft-rl/web-window.ts [DEMOS.jsonl] [TOKENIZER.json]
 */
import { readFileSync } from 'node:fs';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { filterObservation, parseObservationFilter } from '../../policy/observation-filter.ts';
const tok = Tokenizer.fromJSON(JSON.parse(readFileSync(process.argv[3] ?? 'runs/sft-rl/web/sft-s0/checkpoint/tokenizer.json', 'utf8')));
const filter = parseObservationFilter('objective-first');
const budgets = [340, 1000, 2000, 4000];
let total = 0; const inside = budgets.map(() => 0); const lengths: number[] = [];
for (const line of readFileSync(process.argv[2] ?? 'runs/sft-rl/web/demos.jsonl', 'utf8').trim().split('\n')) {
  const demo = JSON.parse(line);
  for (const turn of demo.turns) {
    const id = /\[(\d+)\]/.exec(turn.action)?.[1];
    if (!id) continue;
    total++;
    const ids = tok.encode(filterObservation(filter, turn.observation));
    lengths.push(ids.length);
    budgets.forEach((b, i) => { if (tok.decode(ids.slice(0, b)).includes(`[${id}]`)) inside[i]!++; });
  }
}
lengths.sort((a, b) => a - b);
console.log(`turns acting on an id: ${total}; observation tokens p50 ${lengths[lengths.length >> 1]} p95 ${lengths[Math.floor(lengths.length * 0.95)]}`);
budgets.forEach((b, i) => console.log(`first ${b} tokens hold the target id: ${inside[i]}/${total} = ${(inside[i]! / total).toFixed(3)}`));
