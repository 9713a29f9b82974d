/** The events a pure transition asked to emit (xstate returns them as `xstate.emit` actions). */
export function emitted(actions: readonly { type: string; params?: unknown }[]): { type: string; [key: string]: unknown }[] {
  return actions
    .filter((action) => (action.type as string) === 'xstate.emit')
    .map((action) => (action.params as { event: { type: string } }).event);
}
