import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Transport and CLI tests start real servers and child processes; give them room on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One dot per test, then the summary: a passing run fits on a screen; failures print in full.
    // `npx vitest run --reporter=default` lists every file with its time.
    reporters: ['dot'],
    // Tests that print measurements (fuzz summaries, timings) show them only when they fail.
    silent: 'passed-only',
  },
});
