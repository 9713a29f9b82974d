/**
 * `--frame-budget N`, one declaration for every command that starts a server with a frame budget
 * (servers/listener/frame-budget.ts): `serve` (env server), `--events-port` (event stream) and
 * `learner` (learner server). N frames per second over all the server's connections, shared
 * round-robin, bursts of a tenth of a second, 5 ms slices; 0 turns the budget off.
 */
import { Option } from 'commander';
import { nonNegativeInt } from './output.ts';

/** Longest stretch of frame work per event-loop turn (ms), as every server's default budget has it. */
const SLICE_MS = 5;

/**
 * The option, its help saying which server it paces (`server`, e.g. "the event stream") and its
 * default; without `defaultPerSecond` the option stays undefined unless given (the command picks).
 */
export function frameBudgetOption(server: string, defaultPerSecond?: number, defaultNote = ''): Option {
  const option = new Option(
    '--frame-budget <frames-per-s>',
    `frames per second ${server} runs over all its connections, shared round-robin, bursts of a tenth of a second (0: no budget)${defaultNote}`,
  ).argParser(nonNegativeInt('--frame-budget'));
  return defaultPerSecond === undefined ? option : option.default(defaultPerSecond);
}

/** `--frame-budget N` as a server's `frameBudget` option: N frames/s, bursts of N/10, 5 ms slices; 0 turns it off. */
export function frameBudgetOf(perSecond: number): { perSecond: number; burst: number; sliceMs: number } | false {
  if (perSecond <= 0) return false;
  return { perSecond, burst: Math.max(1, Math.ceil(perSecond / 10)), sliceMs: SLICE_MS };
}
