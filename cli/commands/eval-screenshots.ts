/**
 * `eval --screenshots`: the env definition that sends a picture of the page with every
 * observation. Only the web env has a page; its pictures are taken in this process, so a remote
 * env (whose server made its envs without them) is refused too, rather than record nothing.
 */
import type { EnvDefinition } from '../../envs/contract.ts';

export async function screenshotEnv(env: string, remote: string | undefined): Promise<EnvDefinition> {
  if (env !== 'web') throw new Error(`--screenshots records the web page of each turn: it needs --env web (env "${env}" has no page to picture)`);
  if (remote !== undefined) throw new Error('--screenshots needs the web env in this process: drop --remote (a server\'s envs send no pictures)');
  const { createWebDefinition } = await import('../../envs/web/index.ts');
  return createWebDefinition({ screenshots: true });
}
