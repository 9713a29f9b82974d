/**
 * `actorgym export`: a Hugging Face run's checkpoint as a PEFT adapter or a merged model folder
 * (issue 36). Its options and help; what it does is in export-action.ts (and, for a library user,
 * learner/checkpoint/hf-export.ts), imported when the command runs.
 */
import { Option, type Command } from 'commander';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend-preference.ts';

export interface ExportCommandOptions {
  checkpoint: string;
  format: 'peft' | 'merged';
  out: string;
  dtype: 'f32' | 'bf16' | 'f16';
  force?: boolean;
  baseModelName?: string;
  backend: BackendPreference;
  json?: boolean;
}

const EXAMPLES = `
Formats:
  peft     a PEFT LoRA adapter folder: adapter_config.json (base_model_name_or_path: the base
           model folder the run trained on, or --base-model-name) and adapter_model.safetensors.
           peft, transformers and vLLM load it on top of the base model. LoRA runs only.
  merged   a full model folder: the base's config.json, model.safetensors with the LoRA update
           W + scale·A·B merged into each adapted weight (scale = alpha/r, alpha/√r with rsLoRA;
           or a full run's own weights), and
           the base's tokenizer.json, tokenizer_config.json, chat_template.jinja,
           generation_config.json (and special_tokens_map.json, vocab.json, merges.txt) when present.

--out is written atomically: into <out>.partial-XXXXXX, renamed into place only when complete, so
it is never half-written. An existing non-empty --out is refused unless --force. Only checkpoints
of Hugging Face model runs (--policy hf:DIR) can be exported; actorgym's own transformer is not a
Hugging Face model.

Examples:
  actorgym export --checkpoint runs/qwen-babyai --format peft --out adapters/qwen-babyai
  actorgym export --checkpoint runs/qwen-babyai --format peft --base-model-name Qwen/Qwen2.5-0.5B-Instruct --out adapters/qwen-babyai
  actorgym export --checkpoint runs/qwen-babyai --format merged --dtype bf16 --out models/qwen-babyai
  vllm serve Qwen/Qwen2.5-0.5B-Instruct --enable-lora --lora-modules babyai=adapters/qwen-babyai`;

export function registerExport(program: Command): void {
  program
    .command('export')
    .description("write a Hugging Face run's checkpoint as a PEFT LoRA adapter or a merged model folder, for peft, transformers and vLLM")
    .requiredOption('--checkpoint <dir>', 'the run folder (or its checkpoint/) of a Hugging Face model run')
    .addOption(new Option('--format <format>', 'what to write').choices(['peft', 'merged']).makeOptionMandatory())
    .requiredOption('--out <dir>', 'the folder to write (refused if it exists and is not empty, unless --force)')
    .addOption(new Option('--dtype <dtype>', 'how the weights are stored (bf16, f16: rounded to nearest even)').choices(['f32', 'bf16', 'f16']).default('f32'))
    .option('--force', 'replace an existing --out (only once the new folder is complete)')
    .option('--base-model-name <name>', 'peft: base_model_name_or_path to record, e.g. a hub id (default: the base folder\'s absolute path)')
    .addOption(
      new Option('--backend <backend>', 'tfjs backend that merges (auto: tfjs-node if installed, else WebAssembly, whose 4 GiB heap holds about 1B float32 parameters; cpu: no limit, slower)')
        .choices(BACKEND_PREFERENCES as string[])
        .default('auto'),
    )
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', EXAMPLES)
    .action(async (options: ExportCommandOptions) => (await import('./export-action.ts')).runExport(options));
}
