// The config file: its schema, defineConfig, finding and loading it, and applying it under the flags.
export { QbenchConfig, ConfigTarget } from './schema.js';
export { defineConfig } from './define.js';
export type { QbenchConfigInput } from './schema.js';
export { loadConfig, findConfigFile, CONFIG_FILE_NAMES } from './load-config.js';
export type { LoadedConfig } from './load-config.js';
export { applyConfig, flagGiven, CONFIG_COMMANDS } from './apply-config.js';
