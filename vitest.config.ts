import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/slow-first-sequencer.js';

export default defineConfig({
  // The suites import the authoring API by its package name (tsconfig.json "paths", for tsc and tsx).
  resolve: { alias: { 'qbench/suite': fileURLToPath(new URL('./src/suite/index.ts', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores, three forks: the integration files spend most of their time waiting on the
    // scaled clock, sockets and child processes (two forks kept 1.2 of the 2 cores busy over
    // the suite: 14 CPU-minutes in 12 wall-minutes), so a third fork fills the waits.
    maxWorkers: 3,
    reporters: ['default'],
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          // In-process code only: no build, no sockets, no child processes (test/unit/no-io.ts refuses them).
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/unit/no-io.ts'],
          // The files of a worker share one module graph instead of importing the engine again
          // per file (import was most of the project's time): a unit test restores what it
          // changes (fake timers, spies) after itself.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Servers on loopback, processes, the browser, and the CLI as installed.
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/browser/**/*.test.ts'],
          // One build of dist/ for the tests that run the built CLI; vitest runs it only when
          // this project has files to run.
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
