/**
 * The binary weights frame of the learner protocol (docs/distributed-training.md#weights-frame):
 *
 *   bytes 0–3   magic `AGW1` (ASCII)
 *   bytes 4–7   header length H, uint32 little-endian
 *   bytes 8…    header: UTF-8 JSON {version, tensors: [{name, shape, offset, length}]}
 *   then        zero padding to a multiple of 4 bytes (so the data can be read as float32)
 *   then        data: every tensor's float32 values, little-endian, row-major, back to back;
 *               `offset` and `length` are in bytes from the start of the data
 *
 * Decoding checks every size against every other before reading a value, and a frame that does
 * not add up is a `WeightsFrameError` naming what was wrong.
 */
import { z } from 'zod';

/** Float32 weights by variable name (structurally actors/buffer/producer.ts's NamedWeights). */
export interface WeightsPayload {
  readonly version: number;
  readonly tensors: readonly { readonly name: string; readonly shape: readonly number[]; readonly data: Float32Array }[];
}

export type WeightsFrameErrorCode = 'WEIGHTS_TRUNCATED' | 'WEIGHTS_BAD_MAGIC' | 'WEIGHTS_BAD_HEADER' | 'WEIGHTS_BAD_SIZE';

export class WeightsFrameError extends Error {
  override readonly name = 'WeightsFrameError';
  constructor(
    readonly code: WeightsFrameErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const MAGIC = 'AGW1';
const PREFIX = 8;

const HeaderSchema = z.object({
  version: z.int().min(0),
  tensors: z.array(z.object({
    name: z.string().min(1),
    shape: z.array(z.int().min(0)),
    offset: z.int().min(0),
    length: z.int().min(0),
  })),
});

const align4 = (n: number): number => (n + 3) & ~3;
const elements = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** One frame for a version's weights; the tensors' `data` lengths must match their shapes. */
export function encodeWeightsFrame(weights: WeightsPayload): Buffer {
  let offset = 0;
  const tensors = weights.tensors.map(({ name, shape, data }) => {
    if (data.length !== elements(shape)) {
      throw new WeightsFrameError('WEIGHTS_BAD_SIZE', `tensor ${name}: ${data.length} values for shape [${shape.join(', ')}] (${elements(shape)} expected)`);
    }
    const entry = { name, shape: [...shape], offset, length: data.length * 4 };
    offset += entry.length;
    return entry;
  });
  const header = Buffer.from(JSON.stringify({ version: weights.version, tensors }), 'utf8');
  const dataStart = align4(PREFIX + header.length);
  const frame = Buffer.alloc(dataStart + offset);
  frame.write(MAGIC, 0, 'ascii');
  frame.writeUInt32LE(header.length, 4);
  header.copy(frame, PREFIX);
  weights.tensors.forEach(({ data }, i) => {
    const at = dataStart + tensors[i]!.offset;
    if (LITTLE_ENDIAN) Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(frame, at);
    else data.forEach((value, k) => frame.writeFloatLE(value, at + k * 4));
  });
  return frame;
}

/** The weights of a frame; throws `WeightsFrameError` when the frame is cut short or does not add up. */
export function decodeWeightsFrame(frame: Uint8Array): WeightsPayload {
  const bytes = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  if (bytes.length < PREFIX) throw new WeightsFrameError('WEIGHTS_TRUNCATED', `weights frame of ${bytes.length} bytes is shorter than its ${PREFIX}-byte prefix`);
  if (bytes.toString('ascii', 0, 4) !== MAGIC) throw new WeightsFrameError('WEIGHTS_BAD_MAGIC', `weights frame does not start with ${MAGIC}`);
  const headerLength = bytes.readUInt32LE(4);
  if (PREFIX + headerLength > bytes.length) {
    throw new WeightsFrameError('WEIGHTS_TRUNCATED', `weights frame header of ${headerLength} bytes runs past the frame's ${bytes.length} bytes`);
  }
  const header = parseHeader(bytes.toString('utf8', PREFIX, PREFIX + headerLength));
  const dataStart = align4(PREFIX + headerLength);
  const dataBytes = bytes.length - dataStart;
  let expected = 0;
  for (const t of header.tensors) {
    if (t.length !== elements(t.shape) * 4) {
      throw new WeightsFrameError('WEIGHTS_BAD_SIZE', `tensor ${t.name}: length ${t.length} bytes, but shape [${t.shape.join(', ')}] needs ${elements(t.shape) * 4}`);
    }
    if (t.offset !== expected) throw new WeightsFrameError('WEIGHTS_BAD_SIZE', `tensor ${t.name}: offset ${t.offset}, expected ${expected} (tensors are back to back)`);
    expected += t.length;
  }
  if (dataBytes < expected) throw new WeightsFrameError('WEIGHTS_TRUNCATED', `weights frame holds ${Math.max(0, dataBytes)} data bytes; its header describes ${expected}`);
  if (dataBytes > expected) throw new WeightsFrameError('WEIGHTS_BAD_SIZE', `weights frame holds ${dataBytes} data bytes; its header describes ${expected}`);
  return {
    version: header.version,
    tensors: header.tensors.map((t) => ({ name: t.name, shape: t.shape, data: readFloats(bytes, dataStart + t.offset, t.length / 4) })),
  };
}

function parseHeader(text: string): z.infer<typeof HeaderSchema> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WeightsFrameError('WEIGHTS_BAD_HEADER', 'weights frame header is not JSON');
  }
  const parsed = HeaderSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WeightsFrameError('WEIGHTS_BAD_HEADER', `weights frame header: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  const names = new Set<string>();
  for (const t of parsed.data.tensors) {
    if (names.has(t.name)) throw new WeightsFrameError('WEIGHTS_BAD_HEADER', `weights frame header names tensor ${t.name} twice`);
    names.add(t.name);
  }
  return parsed.data;
}

/** A copy (aligned, owned by the caller) of `count` float32 values at `at`. */
function readFloats(bytes: Buffer, at: number, count: number): Float32Array {
  const out = new Float32Array(count);
  if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(bytes.subarray(at, at + count * 4));
  else for (let k = 0; k < count; k++) out[k] = bytes.readFloatLE(at + k * 4);
  return out;
}
