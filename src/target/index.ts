// The one target model of every command: the --target grammar, the endpoint, and the API key variable.
export {
  EMULATOR_TARGET, DEFAULT_API_KEY_ENV, FALLBACK_API_KEY_ENV, TARGET_GRAMMAR, URL_TARGET_GRAMMAR, API_KEY_ENV_HELP, parseTarget, requireEndpoint, apiKeyEnvName,
} from './target-flag.js';
export type { TargetSpec } from './target-flag.js';
export { GATEWAY_STATUSES, notTheTargetsAnswer } from './gateway.js';
export type { TargetAddresses, TargetKey } from './target-model.js';
