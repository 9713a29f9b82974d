/**
 * Training progress on stderr: the backend and run directory when training starts; then, on a
 * terminal, a bar (step, success, horizon, loss, ETA), else one line per learner step so that
 * logs of a background run (`nohup … 2> train.log`) show the curve. stdout stays for --json.
 */
import { SingleBar } from 'cli-progress';
import type { Observable, Subscription } from 'rxjs';
import type { TrainingEvent } from '../streams/training-events.ts';
import { percent } from './output.ts';

export function showTrainingProgress(events: Observable<TrainingEvent>, totalSteps: number): Subscription {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  let bar: SingleBar | undefined;
  const started = Date.now();
  return events.subscribe({
    next: (event) => {
      if (event.type === 'training.started') {
        write(`backend: ${event.backend}${event.learnerThreads > 1 ? ` (learner on ${event.learnerThreads} threads)` : ''} · ${event.algo} on ${event.env} · ${event.parameters.toLocaleString('en-US')} parameters, vocabulary ${event.vocabSize}` +
          (event.out ? ` · run dir ${event.out}` : '') + (event.fromStep > 0 ? ` · resumed at step ${event.fromStep}` : ''));
        if (process.stderr.isTTY) {
          bar = new SingleBar({
            stream: process.stderr,
            format: ' {bar} step {value}/{total} | success {success} | horizon {horizon} | loss {loss} | ETA {eta_formatted}',
            hideCursor: true,
            etaBuffer: 20,
          });
          bar.start(totalSteps, event.fromStep, { success: '-', horizon: '-', loss: '-' });
        }
      } else if (event.type === 'learner.stepped') {
        const m = event.metrics;
        const fields = { success: percent(m.successRate ?? 0), horizon: m.horizon ?? '-', loss: (m.loss ?? 0).toFixed(4) };
        if (bar) bar.update(event.step, fields);
        else {
          write(`step ${event.step}/${totalSteps} horizon ${fields.horizon} success ${fields.success} reward ${(m.meanReward ?? 0).toFixed(3)} ` +
            `turns ${(m.meanTurns ?? 0).toFixed(2)} loss ${fields.loss} kl ${(m.kl ?? 0).toExponential(2)} entropy ${(m.entropy ?? 0).toFixed(3)} ` +
            `rollout ${(m.rolloutSeconds ?? 0).toFixed(1)}s learn ${(m.learnSeconds ?? 0).toFixed(1)}s t ${((Date.now() - started) / 1000).toFixed(0)}s`);
        }
      } else if (event.type === 'checkpoint.saved' && !bar) {
        write(`checkpoint (step ${event.step}): ${event.path}`);
      } else if (event.type === 'training.finished') {
        bar?.stop();
        bar = undefined;
        write(`training ${event.status} after step ${event.steps}${event.reason !== undefined ? ` (${event.reason})` : ''}${event.status === 'done' ? '; evaluating on the test split…' : ''}`);
      } else if (event.type === 'evaluation.finished') {
        write(`test: ${percent(event.summary.successRate)} success over ${event.summary.episodes} episodes`);
      }
    },
    complete: () => bar?.stop(),
    error: () => bar?.stop(),
  });
}
