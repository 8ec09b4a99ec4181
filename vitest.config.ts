import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One build of dist/ for the tests that run the CLI as installed.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: more forks than that only adds scheduling noise to timing tests.
    maxWorkers: 2,
    reporters: ['default'],
    sequence: { sequencer: SlowFirstSequencer },
  },
});
