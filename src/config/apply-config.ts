// Flags win over the config file: the file fills in only what the command line left out.
// `--target <name>` picks a named target (its URL, endpoint, interface URLs, key variable
// name and spare endpoints); each command then takes its own section and the report directory.
import { isAbsolute, resolve } from 'node:path';
import type { LoadedConfig } from './load-config.js';

/** Where the load command finds the config's scenario entries (files with params and thresholds). */
export const CONFIG_SCENARIOS_KEY = 'qbench-config-scenarios';

/** Commands that name a target; the others take nothing from the targets table. */
const TARGET_COMMANDS = new Set(['check', 'load', 'fuzz', 'worker']);

/** Raw command-line tokens say whether a flag (or one of its spellings) was given. */
export function flagGiven(tokens: readonly string[], ...names: string[]): boolean {
  return tokens.some((t) => names.some((n) => t === `--${n}` || t.startsWith(`--${n}=`) || t === `--no-${n}`));
}

/** Fill `argv` (the parsed flags of `command`) from the config where the flags were not given. */
export function applyConfig(command: string, argv: Record<string, unknown>, tokens: readonly string[], loaded: LoadedConfig): void {
  const c = loaded.config;
  const fill = (key: string, value: unknown, ...spellings: string[]) => {
    if (value !== undefined && !flagGiven(tokens, key, ...spellings)) argv[key] = value;
  };
  const path = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(loaded.dir, p));

  const name = argv['target'];
  const t = typeof name === 'string' && TARGET_COMMANDS.has(command) ? c.targets[name] : undefined;
  if (t) {
    argv['target'] = t.url;
    fill('endpoint', t.endpoint, 'endpoint-id');
    fill('api-key-env', t.apiKeyEnv);
    if (command === 'check' || command === 'fuzz') {
      fill('rest-url', t.restUrl);
      fill('graphql-url', t.graphqlUrl);
    }
    if (command === 'check') fill('spare-endpoint', t.spareEndpoints);
  }
  if (command === 'check') {
    fill('profile', c.conformance.profile);
    fill('only', c.conformance.only);
    fill('skip', c.conformance.skip);
    fill('expect', path(c.conformance.expectations));
  }
  if (command === 'fuzz') {
    fill('runs', c.fuzz.runs);
    fill('model-runs', c.fuzz.modelRuns);
    fill('max-commands', c.fuzz.maxCommands);
    fill('max-duration', c.fuzz.maxDuration);
  }
  if (command === 'load') {
    const named = argv['scenarios'];
    const none = named === undefined || (Array.isArray(named) && named.length === 0);
    if (none && c.load.scenarios) argv[CONFIG_SCENARIOS_KEY] = c.load.scenarios.map((e) => ({ ...e, file: path(e.file) }));
  }
  if (command === 'check' || command === 'load' || command === 'fuzz') fill('out', path(c.reportDir));
}
