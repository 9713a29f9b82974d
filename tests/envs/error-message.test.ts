/** One errorMessage for every room (issue 35): the text of anything thrown, an EnvError's code first. */
import { describe, expect, it } from 'vitest';
import { EnvError } from '../../envs/contract.ts';
import { errorMessage } from '../../envs/error-message.ts';

describe('errorMessage', () => {
  it("is an Error's message, or the thrown value as a string", () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
  });

  it("leads with an EnvError's code unless the code travels beside it", () => {
    const error = new EnvError('ENV_LOST', 'connection closed');
    expect(errorMessage(error)).toBe('ENV_LOST: connection closed');
    expect(errorMessage(error, { withCode: false })).toBe('connection closed');
  });
});
