// The config file: its schema, defineConfig, finding and loading it, and the view a command reads.
export { QbenchConfig, ConfigTarget } from './schema.js';
export { defineConfig } from './define.js';
export type { QbenchConfigInput } from './schema.js';
export { loadConfig, findConfigFile, CONFIG_FILE_NAMES } from './load-config.js';
export type { LoadedConfig } from './load-config.js';
export { configView, configValue, namesConfigTarget } from './config-view.js';
export type { ConfigView, ConfigKey } from './config-view.js';
