/** Where a training or SFT run goes when `--out` is not given: runs/<UTC timestamp>. */
export const defaultRunDir = (): string => `runs/${new Date().toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19)}`;
