/** Registers the environments that ship with actorgym. Imported once by `envs/index.ts`. */
import { babyaiDefinition } from './babyai/index.ts';
import { sciworldDefinition } from './sciworld/index.ts';
import { searchDefinition } from './search/index.ts';
import { textcraftDefinition } from './textcraft/index.ts';
import { webDefinition } from './web/index.ts';
import { webArenaFamilyDefinition, WEBARENA_FAMILY } from './web/webarena/index.ts';
import { registerEnv, registerEnvFamily } from './registry.ts';

registerEnv(babyaiDefinition);
registerEnv(sciworldDefinition);
registerEnv(textcraftDefinition);
registerEnv(searchDefinition);
registerEnv(webDefinition);
registerEnvFamily(WEBARENA_FAMILY, webArenaFamilyDefinition, {
  usage: `${WEBARENA_FAMILY}:DIR`,
  description: "WebArena's own task configs (a folder, or test.raw.json) against your WebArena sites (docs/envs/webarena.md)",
});
