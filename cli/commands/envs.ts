/** `actorgym envs`: the env registry as a table (or JSON); the registry loads when the command runs. */
import type { Command } from 'commander';
import { printJson, table } from '../output.ts';

export function registerEnvs(program: Command): void {
  program
    .command('envs')
    .description('list registered environments with their splits, test categories and default horizons')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { categoryCounts, listEnvFamilies, listEnvs } = await import('../../envs/index.ts');
      const envs = listEnvs().map((definition) => ({
        id: definition.spec.id,
        description: definition.spec.description,
        defaultHorizon: definition.spec.defaultHorizon,
        train: definition.spec.splits.train,
        test: definition.spec.splits.test,
        // The held-out-template split, where an env has one (the web env).
        ...(definition.spec.splits['test-templates'] !== undefined ? { testTemplates: definition.spec.splits['test-templates'] } : {}),
        oracle: definition.oracle !== undefined,
        // What `actorgym eval` reports Avg@n and Pass@k by: tasks per category of the test split.
        testCategories: Object.fromEntries(categoryCounts(definition, 'test').map(({ name, tasks }) => [name, tasks])),
      }));
      if (options.json) return printJson(envs);
      const rows = envs.map((env) => [env.id, String(env.train), String(env.test), String(env.defaultHorizon), env.description]);
      console.log(table([['env', 'train tasks', 'test tasks', 'default horizon', 'description'], ...rows]));
      console.log('\ntest categories (tasks):');
      for (const env of envs) {
        const categories = Object.entries(env.testCategories).map(([name, tasks]) => `${name} ${tasks}`);
        console.log(`  ${env.id.padEnd(10)} ${categories.length > 0 ? categories.join(' · ') : '(none)'}`);
      }
      const families = listEnvFamilies();
      if (families.length > 0) console.log('\nenvs that take an argument (--env NAME:ARG):');
      for (const family of families) console.log(`  ${family.usage.padEnd(14)} ${family.description}`);
    });
}
