/**
 * Issue 35: `import 'actorgym'` loads no TensorFlow.js; the training and SFT systems load it when
 * they run (actors/training/train-run.ts, actors/sft/sft-run.ts, loaded with `import()`). Checked
 * by tracing every module a child process resolves (tests/cli/support/module-trace.mjs).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-lazy-tfjs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TRACE = fileURLToPath(new URL('./cli/support/module-trace.mjs', import.meta.url));
const INDEX = new URL('../index.ts', import.meta.url).href;
const TFJS = /node_modules\/@tensorflow\//;

/** The module URLs a child process resolved while running `script` (an ES module body), and its output. */
function traced(name: string, script: string): Promise<{ modules: string[]; stdout: string }> {
  const file = path.join(dir, `${name}.txt`);
  writeFileSync(file, '');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx/esm', '--import', TRACE, '--input-type=module', '-e', script],
      { env: { ...process.env, ACTORGYM_TRACE_MODULES: file } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        resolve({ modules: readFileSync(file, 'utf8').trim().split('\n'), stdout });
      },
    );
  });
}

describe('importing actorgym (issue 35)', () => {
  it('loads no TensorFlow.js module, nor does creating the systems', async () => {
    const { modules, stdout } = await traced('import', `
      const actorgym = await import(${JSON.stringify(INDEX)});
      actorgym.createTrainingSystem({ env: 'babyai', steps: 1 });
      actorgym.createSftSystem({ env: 'babyai', demos: ['none.jsonl'] });
      console.log(typeof actorgym.createTrainingSystem);
    `);
    expect(stdout.trim()).toBe('function');
    // The trace works: the entry point and the systems are in it.
    expect(modules.some((url) => url.endsWith('/actors/training-system.ts'))).toBe(true);
    expect(modules.filter((url) => TFJS.test(url))).toEqual([]);
    // The OpenAI SDK (about 500 modules) loads with an LLM agent's first request, not on import.
    expect(modules.filter((url) => /node_modules\/openai\//.test(url))).toEqual([]);
  });

  it('loads TensorFlow.js once a training run starts (the trace sees it when it is there)', async () => {
    const { modules, stdout } = await traced('train', `
      const { createTrainingSystem } = await import(${JSON.stringify(INDEX)});
      const run = createTrainingSystem({ env: 'babyai', steps: 1, resume: ${JSON.stringify(path.join(dir, 'no-such-checkpoint'))} }).run();
      console.log(await run.then(() => 'resolved', () => 'rejected'));
    `);
    expect(stdout.trim()).toBe('rejected');
    expect(modules.some((url) => TFJS.test(url))).toBe(true);
  });
});
