// One catalogue of qbench errors with stable codes (undici lib/core/errors.js, fastify
// lib/errors.js). Branch on `code`, never on message text. Messages never carry API keys:
// every constructor passes its message through `redactSecrets`.
import { EXIT, type ExitCode } from './exit-codes.js';

export const ERROR_CODES = {
  QB_ERR_USAGE: { exit: EXIT.USAGE, message: 'invalid usage' },
  QB_ERR_CONFIG: { exit: EXIT.USAGE, message: 'invalid configuration' },
  QB_ERR_SCENARIO: { exit: EXIT.USAGE, message: 'invalid scenario' },
  QB_ERR_HTTP: { exit: EXIT.TARGET_FAILED, message: 'unexpected HTTP status' },
  QB_ERR_SCHEMA_MISMATCH: { exit: EXIT.TARGET_FAILED, message: 'answer does not match the spec schema' },
  QB_ERR_RATE_LIMITED: { exit: EXIT.TARGET_FAILED, message: 'rate limited (429) after all attempts' },
  QB_ERR_TIMEOUT: { exit: EXIT.TARGET_FAILED, message: 'request timed out' },
  QB_ERR_GRAPHQL: { exit: EXIT.TARGET_FAILED, message: 'GraphQL answer carried errors' },
  QB_ERR_UNREACHABLE: { exit: EXIT.TARGET_UNREACHABLE, message: 'target unreachable' },
  QB_ERR_NETWORK: { exit: EXIT.TARGET_FAILED, message: 'connection failed during the request' },
  QB_ERR_INVALID_REQUEST: { exit: EXIT.USAGE, message: 'request does not match the spec schema' },
  QB_ERR_INVALID_MEASUREMENT: { exit: EXIT.INVALID_MEASUREMENT, message: 'measurement invalid' },
  QB_ERR_ABORTED: { exit: EXIT.INTERRUPTED, message: 'aborted' },
  QB_ERR_INTERNAL: { exit: EXIT.INTERNAL, message: 'internal error' },
} as const satisfies Record<string, { exit: ExitCode; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

const SECRET_PATTERNS: readonly [RegExp, string][] = [
  // authorization: KEY / Authorization: Bearer KEY (headers, curl lines, JSON dumps)
  [/(authorization["']?\s*[:=]\s*["']?)(bearer\s+)?[^\s"',}]+/gi, '$1$2[REDACTED]'],
  // api_key=KEY in URLs
  [/([?&]api_key=)[^&\s"']+/gi, '$1[REDACTED]'],
  // "accessSecret": "..."
  [/("accessSecret"\s*:\s*")[^"]*(")/g, '$1[REDACTED]$2'],
  // RUNPOD_AI_API_KEY=... in printed worker environments
  [/(API_KEY=)[^\s"']+/g, '$1[REDACTED]'],
];

const knownSecrets = new Set<string>();

/** Register a secret (an API key) so that it is scrubbed from every message, wherever it appears. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) knownSecrets.add(secret);
}

/** Remove API keys and secrets from text meant for logs, reports or error messages. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of knownSecrets) out = out.split(secret).join('[REDACTED]');
  for (const [re, rep] of SECRET_PATTERNS) out = out.replace(re, rep);
  return out;
}

export class QbenchError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message?: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(redactSecrets(message ?? ERROR_CODES[code].message), options);
    this.name = 'QbenchError';
    this.code = code;
    this.exitCode = ERROR_CODES[code].exit;
    this.details = details;
  }
}

export const usageError = (message: string, details: Record<string, unknown> = {}) =>
  new QbenchError('QB_ERR_USAGE', message, details);
export const configError = (message: string, details: Record<string, unknown> = {}) =>
  new QbenchError('QB_ERR_CONFIG', message, details);
export const scenarioError = (message: string, details: Record<string, unknown> = {}) =>
  new QbenchError('QB_ERR_SCENARIO', message, details);
export const internalError = (message: string, cause?: unknown) =>
  new QbenchError('QB_ERR_INTERNAL', message, {}, { cause });

export function isQbenchError(e: unknown, code?: ErrorCode): e is QbenchError {
  return e instanceof QbenchError && (code === undefined || e.code === code);
}
