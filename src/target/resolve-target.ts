// `--target` resolved once for every command: "emulator" comes back as such (each command starts
// its own in-process emulator with the settings it needs), a URL comes back with its endpoint, its
// key registered for redaction and its facts read from /_qbench/info. What an unreachable URL
// means is the command's: 'remote' goes on with a real target's facts, 'error' stops with exit 5.
import { registerSecret, type QbenchError } from '../errors.js';
import { readTargetFacts, type ReadFactsOptions, type TargetFacts } from './target-facts.js';
import { parseTarget, requireEndpoint } from './target-flag.js';

/** `Key` is string when the caller required a key (missingKey). */
export type ResolvedTargetFlag<Key extends string | undefined = string | undefined> =
  | { readonly kind: 'emulator'; readonly endpointId: string | undefined }
  | {
      readonly kind: 'url';
      /** Origin plus any prefix before /v2/<endpoint_id>, without a trailing slash. */
      readonly queueUrl: string;
      readonly endpointId: string;
      readonly apiKey: Key;
      readonly facts: TargetFacts;
    };

export interface ResolveTargetFlagOptions extends Pick<ReadFactsOptions, 'unreachable' | 'timeoutMs'> {
  /** `--target`: "emulator" or a URL. */
  readonly target: string;
  /** `--endpoint`; must agree with an endpoint the URL names. */
  readonly endpointId?: string | undefined;
  readonly apiKey?: string | undefined;
  /** The error when a URL target comes without a key; left out by a command that goes on without one. */
  readonly missingKey?: () => QbenchError;
}

/** Parse `--target` and, for a URL, require its endpoint (and key when asked) and read its facts. */
export function resolveTargetFlag(o: ResolveTargetFlagOptions & { readonly missingKey: () => QbenchError }): Promise<ResolvedTargetFlag<string>>;
export function resolveTargetFlag(o: ResolveTargetFlagOptions): Promise<ResolvedTargetFlag>;
export async function resolveTargetFlag(o: ResolveTargetFlagOptions): Promise<ResolvedTargetFlag> {
  const spec = parseTarget(o.target, o.endpointId);
  if (spec.kind === 'emulator') return spec;
  if (o.missingKey !== undefined && (o.apiKey === undefined || o.apiKey === '')) throw o.missingKey();
  registerSecret(o.apiKey);
  const endpointId = requireEndpoint(spec);
  const facts = await readTargetFacts(spec.queueUrl, { apiKey: o.apiKey, unreachable: o.unreachable, ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}) });
  return { kind: 'url', queueUrl: spec.queueUrl, endpointId, apiKey: o.apiKey, facts };
}
