// Resolving a target, for every command: the --target grammar, the endpoint and the API key
// variable, the one reader of the emulator's /_qbench/info and the facts taken from it.
export {
  EMULATOR_TARGET, DEFAULT_API_KEY_ENV, FALLBACK_API_KEY_ENV, TARGET_GRAMMAR, URL_TARGET_GRAMMAR, API_KEY_ENV_HELP, parseTarget, requireEndpoint, apiKeyEnvName,
} from './target-flag.js';
export type { TargetSpec } from './target-flag.js';
export { GATEWAY_STATUSES, notTheTargetsAnswer } from './gateway.js';
export type { TargetAddresses, TargetKey } from './target-model.js';
export { EMULATOR_INFO_PATH, INFO_TIMEOUT_MS, readEmulatorInfo } from './emulator-info.js';
export type { InfoFetcher, InfoReading, ReadInfoOptions } from './emulator-info.js';
export { EndpointCountersFacts, endpointCountersFacts, readEndpointCounters } from './emulator-counters.js';
export { REMOTE_FACTS, emulatorFacts, readTargetFacts } from './target-facts.js';
export type { ReadFactsOptions, TargetFacts } from './target-facts.js';
export { DEFAULT_EMULATOR_TIME_SCALE, REAL_TIME_SCALE, rateWindowRealMs } from './time-scale.js';
export { resolveTargetFlag } from './resolve-target.js';
export type { ResolvedTargetFlag, ResolveTargetFlagOptions } from './resolve-target.js';
