// Issue 5: the experiment runner on a 2 × 2 grid with a tiny model — the report has the table and
// the SVG curves, a re-run redoes no finished run, and an interrupted run resumes from its checkpoint.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { createExperimentRunner, loadExperiment, parseExperiment, type Experiment, type ExperimentEvent } from '../../experiment-runner/index.ts';
import { trainFlags } from '../../experiment-runner/cell-args.ts';
import { runCli } from '../cli/run-cli.ts';

const FILE = fileURLToPath(new URL('../../experiments/smoke-babyai.json', import.meta.url));
const out = mkdtempSync(path.join(tmpdir(), 'actorgym-experiment-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function runGrid(experiment: Experiment): Promise<{ events: ExperimentEvent[]; status: string }> {
  const runner = createExperimentRunner(experiment, { out });
  const events = lastValueFrom(runner.events.pipe(toArray()));
  const summary = await runner.run();
  return { events: await events, status: summary.status };
}

const started = (events: readonly ExperimentEvent[]) => events.flatMap((e) => (e.type === 'cell.started' ? [`${e.cell} ${e.mode}@${e.fromStep}`] : []));

describe('actorgym experiment (issue 5)', () => {
  // Five tiny training runs as child processes and one CLI call: seconds each, but more than the
  // default timeout on a loaded 2-core machine.
  it('runs the grid, writes the report, and resumes without redoing finished runs', { timeout: 180_000 }, async () => {
    const experiment = await loadExperiment(FILE);
    const first = await runGrid(experiment);
    expect(first.status).toBe('done');
    expect(started(first.events).sort()).toEqual(['adaptive/seed-0 fresh@0', 'adaptive/seed-1 fresh@0', 'fixed-2/seed-0 fresh@0', 'fixed-2/seed-1 fresh@0']);
    expect(first.events.filter((e) => e.type === 'cell.progress').length).toBeGreaterThanOrEqual(8);

    const report = readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(report).toMatch(/\| schedule \| \| runs \| test success \| test mean turns \|/);
    expect(report).toMatch(/\| fixed-2 \| `fixed:2` \| 2\/2 \| \d+\.\d% ± \d+\.\d \| \d+\.\d\d ± \d+\.\d\d \|/);
    expect(report).toMatch(/\| adaptive \| `adaptive:min=2,max=4,step=2,window=2,trunc=0.2` \| 2\/2 \|/);
    expect(report).toContain('![rollout success (train tasks)](success.svg)');
    expect(report).toContain('![mean turns per episode](turns.svg)');
    for (const file of ['success.svg', 'turns.svg', 'horizon.svg']) {
      const svg = readFileSync(path.join(out, file), 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toContain('fixed-2 (fixed:2)');
      expect(svg).toContain('adaptive (adaptive:min=2');
    }
    const json = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(json.schedules.map((s: { name: string; finished: number }) => [s.name, s.finished])).toEqual([['fixed-2', 2], ['adaptive', 2]]);

    // Again: every run is finished, nothing is started.
    const again = await runGrid(experiment);
    expect(again.status).toBe('done');
    expect(started(again.events)).toEqual([]);
    expect(again.events.filter((e) => e.type === 'cell.skipped')).toHaveLength(4);

    // A run interrupted after its last checkpoint (no result.json yet) resumes from it, once.
    const cell = path.join(out, 'runs', 'fixed-2', 'seed-1');
    rmSync(path.join(cell, 'result.json'));
    const resumed = await runGrid(experiment);
    expect(started(resumed.events)).toEqual(['fixed-2/seed-1 resume@2']);
    expect(JSON.parse(readFileSync(path.join(cell, 'result.json'), 'utf8'))).toMatchObject({ steps: 2, attempts: 2 });
    expect(readFileSync(path.join(cell, 'train.log'), 'utf8')).toMatch(/resumed at step 2/);

    // The CLI, report only: the table on stdout, nothing run.
    const cli = await runCli(['experiment', FILE, '--out', out, '--report-only']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/fixed-2\s+fixed:2\s+2\/2\s+\d+\.\d% ± /);
    expect(cli.stderr).toMatch(/4 runs \(4 done, 0 to run/);
  });

  it('refuses to continue a run whose configuration changed', async () => {
    const experiment = await loadExperiment(FILE);
    const changed: Experiment = { ...experiment, schedules: { ...experiment.schedules, 'fixed-2': 'fixed:3' } };
    await expect(createExperimentRunner(changed, { out }).run()).rejects.toThrow(/fixed-2\/seed-0: .* holds a run of another configuration/);
  });

  it('explains a bad experiment file with the JSON path of each problem', () => {
    const bad = parseExperiment({
      name: 'x', env: 'babyai', steps: 0, seeds: [1, 1],
      schedules: { ok: 'fixed:3', broken: 'scaling:[2,x]@3' }, train: { corpusTasks: 3 },
    }, 'bad.json');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error).toMatch(/^bad\.json is not a valid experiment:/);
      expect(bad.error).toMatch(/steps: /);
      expect(bad.error).toMatch(/seeds: seeds must be distinct/);
      expect(bad.error).toMatch(/train: Unrecognized key.*corpusTasks/);
    }
    const schedule = parseExperiment({ name: 'x', env: 'babyai', steps: 2, seeds: [0], schedules: { broken: 'scaling:[2,x]@3' } }, 'bad.json');
    expect(schedule.ok).toBe(false);
    if (!schedule.ok) expect(schedule.error).toMatch(/schedules\.broken: horizon "x" is not a positive integer/);
    writeFileSync(path.join(out, 'not-json.json'), '{ nope');
    return expect(loadExperiment(path.join(out, 'not-json.json'))).rejects.toThrow(/not-json\.json is not valid JSON/);
  });

  it('fails in one line on a missing file', async () => {
    const missing = await runCli(['experiment', path.join(out, 'nowhere.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/actorgym: error: cannot read experiment file .*nowhere\.json: no such file/);
  });

  it('has the horizon experiments valid', async () => {
    for (const name of ['horizon-babyai', 'horizon-textcraft']) {
      const example = await loadExperiment(fileURLToPath(new URL(`../../experiments/${name}.json`, import.meta.url)));
      expect(Object.keys(example.schedules).length).toBeGreaterThanOrEqual(4);
      expect(example.seeds.length).toBeGreaterThanOrEqual(3);
    }
    expect(existsSync(FILE)).toBe(true);
  });

  it('passes the context options of a cell to actorgym train as flags', () => {
    const parsed = parseExperiment({
      name: 'x', env: 'textcraft', steps: 2, seeds: [0], schedules: { a: 'fixed:3' }, train: { historyTurns: 2, historyActionsOnly: true, instructionTokens: 24, actionWords: 'reversed' },
    });
    if (!parsed.ok) throw new Error(parsed.error);
    const args = trainFlags(parsed.value.train);
    expect(args.join(' ')).toContain('--history-turns 2 --instruction-tokens 24 --action-words reversed');
    expect(args).toContain('--history-actions-only');
    expect(parseExperiment({ name: 'x', env: 'babyai', steps: 2, seeds: [0], schedules: { a: 'fixed:3' }, train: { historyTurns: -1 } }).ok).toBe(false);
    expect(parseExperiment({ name: 'x', env: 'babyai', steps: 2, seeds: [0], schedules: { a: 'fixed:3' }, train: { actionWords: 'backwards' } }).ok).toBe(false);
  });
});
