/**
 * Masked whitening on the host: `(x − mean) / sqrt(var + 1e-8)` over the positions where
 * mask == 1, as verl's `masked_whiten` (unbiased variance, Bessel-corrected by n/(n−1)).
 * Off-mask positions come out as 0.
 *
 * Departure: verl raises when fewer than two positions are unmasked; here a batch with 0 or 1
 * agent tokens whitens to all zeros (x − mean is 0 there anyway), so a degenerate batch cannot
 * crash a training run.
 */

/** Added to the variance before the square root (verl: 1e-8). */
export const WHITEN_EPSILON = 1e-8;

export function maskedWhiten(x: ArrayLike<number>, mask: ArrayLike<number>): Float32Array {
  const out = new Float32Array(x.length);

  // --- masked mean -------------------------------------------------------------------------
  let n = 0;
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    if (mask[i] === 1) {
      n++;
      sum += x[i] as number;
    }
  }
  if (n < 2) return out;
  const mean = sum / n;

  // --- unbiased masked variance ------------------------------------------------------------
  let squares = 0;
  for (let i = 0; i < x.length; i++) {
    if (mask[i] === 1) squares += ((x[i] as number) - mean) ** 2;
  }
  const variance = squares / (n - 1);

  // --- whiten --------------------------------------------------------------------------------
  const scale = 1 / Math.sqrt(variance + WHITEN_EPSILON);
  for (let i = 0; i < x.length; i++) {
    if (mask[i] === 1) out[i] = ((x[i] as number) - mean) * scale;
  }
  return out;
}
