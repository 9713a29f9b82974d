/**
 * numpy's default generator, bit for bit: `Generator(PCG64(SeedSequence(seed)))`, what gymnasium's
 * `reset(seed=...)` gives an env (gymnasium/utils/seeding.py). With it a minigrid level made here
 * draws the same numbers as AgentGym's BabyAI server.
 *
 * Covered: SeedSequence for a non-negative integer (numpy/random/bit_generator.pyx), PCG64
 * (XSL-RR 128/64, numpy/random/src/pcg64), `integers(low, high)` for ranges below 2^32 (Lemire's
 * method on the 32-bit halves of each 64-bit output, random_bounded_uint64 in
 * numpy/random/src/distributions/distributions.c) and `random()`/`uniform()` (53-bit doubles).
 * Checked against numpy's own output in tests/envs/numpy-random.test.ts.
 */
import { Rng } from './rng.ts';

const MASK64 = (1n << 64n) - 1n;
const MASK128 = (1n << 128n) - 1n;
const PCG_MULT = 0x2360ed051fc65da44385df649fccf645n;

const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const POOL_SIZE = 4;

const mul32 = (a: number, b: number): number => Math.imul(a, b) >>> 0;

/** `_int_to_uint32_array`: the integer's 32-bit words, lowest first; 0 is one word. */
function uint32Words(seed: number | bigint): number[] {
  let n = BigInt(seed);
  if (n < 0n) throw new RangeError(`a numpy seed must be a non-negative integer, got ${seed}`);
  const words: number[] = [];
  do {
    words.push(Number(n & 0xffffffffn));
    n >>= 32n;
  } while (n > 0n);
  return words;
}

/** SeedSequence(seed).generate_state(4, uint64): PCG64's seed (words 0, 1) and increment (2, 3). */
export function seedSequenceState(seed: number | bigint, nWords64 = 4): bigint[] {
  const entropy = uint32Words(seed);
  let hashConst = INIT_A;
  const hashmix = (value: number): number => {
    value = (value ^ hashConst) >>> 0;
    hashConst = mul32(hashConst, MULT_A);
    value = mul32(value, hashConst);
    return (value ^ (value >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const result = (mul32(MIX_MULT_L, x) - mul32(MIX_MULT_R, y)) >>> 0;
    return (result ^ (result >>> 16)) >>> 0;
  };
  const pool = Array.from({ length: POOL_SIZE }, (_, i) => hashmix(entropy[i] ?? 0));
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) if (src !== dst) pool[dst] = mix(pool[dst]!, hashmix(pool[src]!));
  }
  for (let src = POOL_SIZE; src < entropy.length; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst]!, hashmix(entropy[src]!));
  }
  let constB = INIT_B;
  const words32: number[] = [];
  for (let i = 0; i < nWords64 * 2; i++) {
    let value = (pool[i % POOL_SIZE]! ^ constB) >>> 0;
    constB = mul32(constB, MULT_B);
    value = mul32(value, constB);
    words32.push((value ^ (value >>> 16)) >>> 0);
  }
  // Little-endian pairs of 32-bit words make the 64-bit words.
  return Array.from({ length: nWords64 }, (_, i) => (BigInt(words32[2 * i + 1]!) << 32n) | BigInt(words32[2 * i]!));
}

/** A 64-bit rotation right of `value` by `rot` bits. */
const rotr64 = (value: bigint, rot: bigint): bigint => ((value >> rot) | (value << ((64n - rot) & 63n))) & MASK64;

export class NumpyRng extends Rng {
  private pcgState = 0n;
  private readonly inc: bigint;
  /** PCG64 hands out 32-bit draws in pairs: the high half of an output waits here. */
  private spare: number | undefined;

  constructor(seed: number | bigint) {
    super(0);
    const [s0, s1, i0, i1] = seedSequenceState(seed);
    const initState = (s0! << 64n) | s1!;
    this.inc = ((((i0! << 64n) | i1!) << 1n) | 1n) & MASK128;
    this.step();
    this.pcgState = (this.pcgState + initState) & MASK128;
    this.step();
  }

  private step(): void {
    this.pcgState = (this.pcgState * PCG_MULT + this.inc) & MASK128;
  }

  /** The next 64-bit output (`pcg64_next64`). */
  next64(): bigint {
    this.step();
    const s = this.pcgState;
    return rotr64(((s >> 64n) ^ s) & MASK64, s >> 122n);
  }

  /** The next 32-bit output (`pcg64_next32`): the low half of a fresh output, then its high half. */
  next32(): number {
    if (this.spare !== undefined) {
      const value = this.spare;
      this.spare = undefined;
      return value;
    }
    const out = this.next64();
    this.spare = Number(out >> 32n);
    return Number(out & 0xffffffffn);
  }

  /** `Generator.random()`: a double in [0, 1) from the top 53 bits of a 64-bit output. */
  override next(): number {
    return Number(this.next64() >> 11n) * (1 / 9007199254740992);
  }

  /** `Generator.uniform(low, high)`. */
  uniform(low: number, high: number): number {
    return low + (high - low) * this.next();
  }

  /** `Generator.integers(low, high)`: an integer in [low, high); no draw when the range holds one value. */
  override range(low: number, high: number): number {
    if (!Number.isInteger(low) || !Number.isInteger(high) || high <= low) throw new RangeError(`integers(${low}, ${high}): need integers with low < high`);
    const rng = high - low - 1;
    if (rng === 0) return low;
    if (rng >= 0xffffffff) throw new RangeError(`integers(${low}, ${high}): ranges of 2^32 or more are not ported`);
    // Lemire's method with rejection, as buffered_bounded_lemire_uint32.
    const excl = BigInt(rng + 1);
    let m = BigInt(this.next32()) * excl;
    let leftover = m & 0xffffffffn;
    if (leftover < excl) {
      const threshold = BigInt((0xffffffff - rng) % (rng + 1));
      while (leftover < threshold) {
        m = BigInt(this.next32()) * excl;
        leftover = m & 0xffffffffn;
      }
    }
    return low + Number(m >> 32n);
  }

  override int(n: number): number {
    return this.range(0, n);
  }

  /** minigrid's `_rand_bool`: `integers(0, 2) == 0`. */
  override bool(): boolean {
    return this.range(0, 2) === 0;
  }

  /** minigrid's `_rand_elem`: `items[integers(0, len)]`. */
  override pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('NumpyRng.pick: empty list');
    return items[this.range(0, items.length)] as T;
  }
}
