/** [rows, cols] row-major → [cols, rows]: between peft's [out, in] layout and ours ([in, out]). */
export function transposed(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c]!;
  return out;
}
