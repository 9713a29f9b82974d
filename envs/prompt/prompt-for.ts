/**
 * The prompt of an env named by id: what a command, the policy server or a demo converter uses
 * when it has an env's name rather than its definition. The registered env's own prompt
 * (`EnvDefinition.prompt`; the built-ins' live in envs/<family>/prompt.ts), AgentGym's names for
 * the built-in envs, else the generic Thought/Action prompt.
 *
 * @example
 * const prompt = promptFor('babyai');
 * const first = prompt.firstTurn(reset.observation, reset.info.availableActions);
 * const parsed = prompt.parseReply('Thought: the ball is ahead.\nAction: go to red ball 1');
 * // parsed = { ok: true, action: 'go to red ball 1' }
 */
// The built-in envs, registered, so a name finds its family even when nothing imported envs/index.ts.
import '../builtin.ts';
import { promptOf, type PromptOptions, type PromptTemplate } from '../contract.ts';
import { listEnvs } from '../registry.ts';

/** AgentGym's names for our envs, as a remote AgentGym server calls them. */
const AGENTGYM_NAMES: Readonly<Record<string, string>> = {
  searchqa: 'search',
  scienceworld: 'sciworld',
  webarena: 'web',
};

/** The prompt of env `envId` (case-insensitive); an unknown id, or an env without one, gets the generic Thought/Action prompt. */
export function promptFor(envId: string, options: PromptOptions = {}): PromptTemplate {
  // A family env (`webarena:DIR`) is prompted as its family.
  const lower = envId.toLowerCase().replace(/:.*$/s, '');
  const id = Object.hasOwn(AGENTGYM_NAMES, lower) ? AGENTGYM_NAMES[lower] : lower;
  const definition = listEnvs().find((d) => d.spec.id.toLowerCase() === id);
  return promptOf(definition ?? {}, options);
}
