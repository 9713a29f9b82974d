/** Issue 37: the binary weights frame of the learner protocol — round trip, and frames that do not add up. */
import { describe, expect, it } from 'vitest';
import { decodeWeightsFrame, encodeWeightsFrame, WeightsFrameError } from '../../../transport/learner-wire/weights-frame.ts';

const weights = {
  version: 7,
  tensors: [
    { name: 'embed', shape: [2, 3], data: new Float32Array([1, -2, 3.5, 0, 1e-8, -0]) },
    { name: 'b', shape: [1], data: new Float32Array([Math.PI]) },
    { name: 'empty', shape: [0, 4], data: new Float32Array([]) },
  ],
};

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WeightsFrameError);
    return `${(error as WeightsFrameError).code}: ${(error as Error).message}`;
  }
  throw new Error('expected a WeightsFrameError');
}

/** A frame rebuilt with another header (same data bytes). */
function withHeader(frame: Buffer, edit: (header: { version: number; tensors: { name: string; shape: number[]; offset: number; length: number }[] }) => void): Buffer {
  const length = frame.readUInt32LE(4);
  const header = JSON.parse(frame.toString('utf8', 8, 8 + length));
  const data = frame.subarray((8 + length + 3) & ~3);
  edit(header);
  const text = Buffer.from(JSON.stringify(header));
  const start = (8 + text.length + 3) & ~3;
  const out = Buffer.alloc(start + data.length);
  out.write('AGW1', 0, 'ascii');
  out.writeUInt32LE(text.length, 4);
  text.copy(out, 8);
  data.copy(out, start);
  return out;
}

describe('the weights frame', () => {
  it('round-trips names, shapes, version and every float32 bit', () => {
    const frame = encodeWeightsFrame(weights);
    const back = decodeWeightsFrame(frame);
    expect(back.version).toBe(7);
    expect(back.tensors.map((t) => [t.name, t.shape])).toEqual([['embed', [2, 3]], ['b', [1]], ['empty', [0, 4]]]);
    back.tensors.forEach((t, i) => expect(Buffer.from(t.data.buffer)).toEqual(Buffer.from(weights.tensors[i]!.data.buffer)));
    // Header, padding to 4, then 7 floats.
    expect(frame.length % 4).toBe(0);
    expect(frame.length).toBe(((8 + frame.readUInt32LE(4) + 3) & ~3) + 7 * 4);
  });

  it('decodes from an unaligned view of a larger buffer (as ws may hand it over)', () => {
    const frame = encodeWeightsFrame(weights);
    const big = Buffer.alloc(frame.length + 3);
    frame.copy(big, 1);
    const back = decodeWeightsFrame(big.subarray(1, 1 + frame.length));
    expect(Array.from(back.tensors[0]!.data)).toEqual(Array.from(weights.tensors[0]!.data));
  });

  it('refuses a truncated frame, naming what is missing', () => {
    const frame = encodeWeightsFrame(weights);
    expect(codeOf(() => decodeWeightsFrame(frame.subarray(0, frame.length - 4)))).toMatch(/^WEIGHTS_TRUNCATED: .*holds 24 data bytes; its header describes 28/);
    expect(codeOf(() => decodeWeightsFrame(frame.subarray(0, 20)))).toMatch(/^WEIGHTS_TRUNCATED: weights frame header of \d+ bytes runs past/);
    expect(codeOf(() => decodeWeightsFrame(frame.subarray(0, 5)))).toMatch(/^WEIGHTS_TRUNCATED: .*8-byte prefix/);
  });

  it('refuses wrong sizes: data longer than the header, a length that does not fit the shape, gaps', () => {
    const frame = encodeWeightsFrame(weights);
    expect(codeOf(() => decodeWeightsFrame(Buffer.concat([frame, Buffer.alloc(4)])))).toMatch(/^WEIGHTS_BAD_SIZE: .*holds 32 data bytes; its header describes 28/);
    const badShape = withHeader(frame, (h) => { h.tensors[0]!.shape = [3, 3]; });
    expect(codeOf(() => decodeWeightsFrame(badShape))).toMatch(/^WEIGHTS_BAD_SIZE: tensor embed: length 24 bytes, but shape \[3, 3\] needs 36/);
    const gap = withHeader(frame, (h) => { h.tensors[1]!.offset = 28; });
    expect(codeOf(() => decodeWeightsFrame(gap))).toMatch(/^WEIGHTS_BAD_SIZE: tensor b: offset 28, expected 24/);
  });

  it('refuses a bad magic, a header that is not JSON or misses a field, and a name given twice', () => {
    const frame = encodeWeightsFrame(weights);
    const magic = Buffer.from(frame);
    magic.write('XXXX', 0, 'ascii');
    expect(codeOf(() => decodeWeightsFrame(magic))).toMatch(/^WEIGHTS_BAD_MAGIC/);
    const notJson = Buffer.from(frame);
    notJson.write('!', 8, 'ascii');
    expect(codeOf(() => decodeWeightsFrame(notJson))).toMatch(/^WEIGHTS_BAD_HEADER: weights frame header is not JSON/);
    const noVersion = withHeader(frame, (h) => { delete (h as { version?: number }).version; });
    expect(codeOf(() => decodeWeightsFrame(noVersion))).toMatch(/^WEIGHTS_BAD_HEADER: weights frame header: version: /);
    const twice = withHeader(frame, (h) => { h.tensors[1]!.name = 'embed'; });
    expect(codeOf(() => decodeWeightsFrame(twice))).toMatch(/^WEIGHTS_BAD_HEADER: .*names tensor embed twice/);
  });

  it('refuses to encode a tensor whose data does not fit its shape', () => {
    expect(codeOf(() => encodeWeightsFrame({ version: 0, tensors: [{ name: 'w', shape: [2, 2], data: new Float32Array(3) }] }))).toBe(
      'WEIGHTS_BAD_SIZE: tensor w: 3 values for shape [2, 2] (4 expected)',
    );
  });
});
