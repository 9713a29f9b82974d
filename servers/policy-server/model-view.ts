/**
 * What the served transformer reads of a turn: the checkpoint's observation filter and hidden
 * actions, applied exactly as `FilteredPolicy` applies them in `eval --checkpoint` (hidden
 * actions leave the choices unless they would empty them; then the observation filter). The
 * server applies them itself because it also replays past turns (`teacherForce`), which must read
 * the same as the turns decoded live.
 */
import { filterObservation, type ObservationFilter } from '../../policy/observation-filter.ts';
import type { ReadTurn } from './served-prompt.ts';

export interface ModelView {
  readonly filter: ObservationFilter;
  readonly hide: readonly string[];
}

export function seenTurn(view: ModelView, turn: ReadTurn): ReadTurn {
  const observation = filterObservation(view.filter, turn.observation);
  const actions = turn.availableActions;
  if (actions === undefined) return { observation };
  const kept = view.hide.length === 0 ? actions : actions.filter((a) => !view.hide.includes(a));
  return { observation, availableActions: kept.length === 0 ? actions : kept };
}
