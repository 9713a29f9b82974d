/**
 * The checkpoint of a Hugging Face model run (issue 36): what the trainer writes and resumes from,
 * and what `actorgym export` reads. hf-format.ts describes the folder; this is its public face.
 */
export { checkpointKind, locateCheckpoint } from './read.ts';
export type { CheckpointKind } from './format.ts';
export {
  HF_CHECKPOINT_FILES,
  HF_MODES,
  HfCheckpointStateSchema,
  HfRunInfoSchema,
  LoraConfigSchema,
  type HfCheckpointData,
  type HfCheckpointState,
  type HfRunInfo,
  type HfTrainingMode,
} from './hf-format.ts';
export { hfCheckpointWriteStages, writeHfCheckpoint } from './hf-write.ts';
export { disposeHfCheckpoint, readHfCheckpoint, type HfCheckpoint, type ReadHfCheckpointOptions } from './hf-read.ts';
export { encodeNamedWeights, namedWeights, readNamedWeights, writeNamedWeights } from './hf-weights.ts';
export { encodePeftAdapter, type PeftAdapterFiles } from '../../policy/hf/lora/encode-peft-adapter.ts';
export { COPIED_BASE_FILES, EXPORT_DTYPES, EXPORT_FORMATS, exportHfCheckpoint, type ExportDtype, type ExportFormat, type ExportOptions, type ExportResult } from './hf-export.ts';
export { OutExistsError } from './atomic-folder.ts';
