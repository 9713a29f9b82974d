import type { Command } from 'commander';
import { benchmarks } from '../../bench/index.ts';

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description(`run benchmarks (${benchmarks.map((b) => b.name).join(', ')}); all but the hours-long ones (${benchmarks.filter((b) => b.long).map((b) => b.name).join(', ')}) when no name is given`)
    .argument('[name]', 'one benchmark')
    .action(async (name: string | undefined) => {
      const chosen = name === undefined ? benchmarks.filter((b) => b.long !== true) : benchmarks.filter((b) => b.name === name);
      if (chosen.length === 0) throw new Error(`unknown benchmark "${name}"; known: ${benchmarks.map((b) => b.name).join(', ')}`);
      for (const bench of chosen) {
        console.log(`\n## ${bench.name}: ${bench.description}\n`);
        await bench.run();
      }
    });
}
