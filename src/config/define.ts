// The `qbench/config` entry: defineConfig for a qbench.config.* file. It imports types only, so
// a config file that loads it loads this one module and no engine code; the CLI validates the
// file's default export against the schema (src/config/schema.ts) when it reads it.
import type { QbenchConfigInput } from './schema.js';

export type { QbenchConfigInput } from './schema.js';

/** Typed identity for qbench.config.ts: `export default defineConfig({ ... })`. */
export function defineConfig(config: QbenchConfigInput): QbenchConfigInput {
  return config;
}
