/** Closes the connection of a `--remote` env definition; a local definition has nothing to close. */
export async function closeRemote(env: object): Promise<void> {
  const close = (env as { close?: () => Promise<void> }).close;
  if (typeof close === 'function') await close.call(env);
}
