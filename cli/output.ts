/** Shared CLI output: one-line errors instead of stack traces, aligned tables, JSON on stdout. */
import { InvalidArgumentError } from 'commander';
import { errorMessage } from '../envs/error-message.ts';

/** The one prefix of every error line the CLI prints (issue 35), commander's own included (main.ts). */
export const ERROR_PREFIX = 'actorgym: error: ';

/** `message` as the CLI's error line(s); a message that already says `error: ` (commander's) is not prefixed twice. */
export function errorLine(message: string): string {
  return `${ERROR_PREFIX}${message.replace(/^error: /, '')}${message.endsWith('\n') ? '' : '\n'}`;
}

export function reportFailure(error: unknown): never {
  const message = errorMessage(error);
  process.stderr.write(errorLine(message));
  if (process.env.ACTORGYM_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

// The table lives in charts/ so bench/ and experiments/ share it without importing cli/.
export { table } from '../charts/text-table.ts';

export function positiveInt(name: string) {
  return (text: string): number => {
    if (!/^\d+$/.test(text) || Number(text) < 1) throw new InvalidArgumentError(`${name} must be a positive integer, got "${text}"`);
    return Number(text);
  };
}

export function nonNegativeInt(name: string) {
  return (text: string): number => {
    if (!/^\d+$/.test(text)) throw new InvalidArgumentError(`${name} must be a non-negative integer, got "${text}"`);
    return Number(text);
  };
}

export function port(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new InvalidArgumentError(`port must be 0..65535, got "${text}"`);
  return Number(text);
}

export const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

export function positiveNumber(name: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!(Number.isFinite(value) && value > 0)) throw new InvalidArgumentError(`${name} must be a number > 0, got "${text}"`);
    return value;
  };
}

export function nonNegativeNumber(name: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!(Number.isFinite(value) && value >= 0)) throw new InvalidArgumentError(`${name} must be a number ≥ 0, got "${text}"`);
    return value;
  };
}
