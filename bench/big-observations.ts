/**
 * An env whose every observation is `bytes` long, so that a few unread replies fill a socket:
 * what the never-reading-client benchmark and its test send (issue 40).
 */
import type { EnvDefinition } from '../envs/contract.ts';

export function withBigObservations(base: EnvDefinition, bytes: number): EnvDefinition {
  const filler = 'x'.repeat(bytes);
  return {
    ...base,
    make: () => {
      const env = base.make();
      const reset = env.reset.bind(env);
      env.reset = async (options) => ({ ...(await reset(options)), observation: filler });
      return env;
    },
  };
}
