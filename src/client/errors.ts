// Typed errors of the clients, one class per QB_ERR_* code they raise. Each keeps what a
// report needs (status, raw body, zod issues, GraphQL errors, attempts), with API keys
// scrubbed from every string it holds (§5 keys never reach logs, reports or errors).
import type { z } from 'zod';
import { QbenchError, redactSecrets, type ErrorCode } from '../errors.js';
import type { AttemptRecord } from './backoff.js';

/** Where a request went, for messages: method and URL without the query's secrets. */
export interface RequestTarget {
  readonly method: string;
  readonly url: string;
}

/** A JSON-safe, redacted summary of an underlying error (undici, DNS, ...). */
export interface CauseSummary {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

export function summarizeCause(e: unknown): CauseSummary {
  if (e instanceof Error) {
    const code = (e as Error & { code?: unknown }).code;
    const inner = e.cause instanceof Error ? `: ${e.cause.message}` : '';
    return {
      name: e.name,
      message: redactSecrets(`${e.message}${inner}`),
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return { name: 'Error', message: redactSecrets(String(e)) };
}

// The URL goes last and space-delimited so that the api_key pattern of redactSecrets cannot eat
// into the text around it.
const describeTarget = (t: RequestTarget) => `${t.method} ${redactSecrets(t.url)} `;

/** Base of every client error: the request it belongs to and its attempts so far. */
export abstract class ClientError extends QbenchError {
  readonly method: string;
  readonly url: string;
  /** Every HTTP attempt of the logical request, the failing one included. */
  attempts: readonly AttemptRecord[] = [];

  protected constructor(
    code: ErrorCode,
    message: string,
    target: RequestTarget,
    details: Record<string, unknown> = {},
    cause?: CauseSummary,
  ) {
    super(code, message, details, cause ? { cause } : undefined);
    this.method = target.method;
    this.url = redactSecrets(target.url);
  }

  /** JSON form for reports: everything but the stack, already redacted. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, method: this.method, url: this.url, attempts: this.attempts, details: this.details, ...this.extraJson() };
  }

  protected extraJson(): Record<string, unknown> {
    return {};
  }
}

/** Error body shape of the service (WIRE-COMPAT: `{error, code?}`), when it sent one. */
function errorText(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const e = body.error;
    if (typeof e === 'string') return e;
  }
  return undefined;
}

/** A non-2xx answer that the operation does not expect (QB_ERR_HTTP). */
export class HttpStatusError extends ClientError {
  override readonly name = 'HttpStatusError';
  readonly status: number;
  /** The answer body as text (redacted). */
  readonly rawBody: string;
  /** The `error` string of a JSON error body, when there is one. */
  readonly serviceError: string | undefined;

  constructor(target: RequestTarget, status: number, rawBody: string, parsedBody: unknown) {
    const serviceError = errorText(parsedBody);
    super('QB_ERR_HTTP', `${describeTarget(target)}answered ${status}${serviceError ? `: ${serviceError}` : ''}`, target, { status });
    this.status = status;
    this.rawBody = redactSecrets(rawBody);
    this.serviceError = serviceError === undefined ? undefined : redactSecrets(serviceError);
  }

  protected override extraJson(): Record<string, unknown> {
    return { status: this.status, rawBody: this.rawBody, serviceError: this.serviceError };
  }
}

export type MismatchReason = 'content-type' | 'json' | 'schema';

/** A 2xx answer that is not what the spec says (QB_ERR_SCHEMA_MISMATCH); keeps the raw body. */
export class SchemaMismatchError extends ClientError {
  override readonly name = 'SchemaMismatchError';
  readonly reason: MismatchReason;
  readonly status: number;
  readonly contentType: string | undefined;
  /** The answer body as text (redacted). */
  readonly rawBody: string;
  /** zod issues (reason 'schema'); empty otherwise. */
  readonly issues: readonly z.core.$ZodIssue[];

  constructor(
    target: RequestTarget,
    args: { reason: MismatchReason; status: number; contentType: string | undefined; rawBody: string; issues?: readonly z.core.$ZodIssue[]; summary: string; schemaName: string },
  ) {
    super('QB_ERR_SCHEMA_MISMATCH', `${describeTarget(target)}-> answer does not match ${args.schemaName} (${args.reason}): ${args.summary}`, target, {
      status: args.status,
      reason: args.reason,
      schema: args.schemaName,
    });
    this.reason = args.reason;
    this.status = args.status;
    this.contentType = args.contentType;
    this.rawBody = redactSecrets(args.rawBody);
    this.issues = args.issues ?? [];
  }

  protected override extraJson(): Record<string, unknown> {
    return { status: this.status, reason: this.reason, contentType: this.contentType, rawBody: this.rawBody, issues: this.issues };
  }
}

/** Still 429 after the policy's last attempt (QB_ERR_RATE_LIMITED). */
export class RateLimitedError extends ClientError {
  override readonly name = 'RateLimitedError';
  readonly rawBody: string;

  constructor(target: RequestTarget, attempts: readonly AttemptRecord[], rawBody: string) {
    super('QB_ERR_RATE_LIMITED', `${describeTarget(target)}answered 429 on all ${attempts.length} attempts`, target, { attemptCount: attempts.length });
    this.attempts = attempts;
    this.rawBody = redactSecrets(rawBody);
  }

  protected override extraJson(): Record<string, unknown> {
    return { rawBody: this.rawBody };
  }
}

/** No complete answer within the per-request timeout (QB_ERR_TIMEOUT). */
export class RequestTimeoutError extends ClientError {
  override readonly name = 'RequestTimeoutError';
  readonly timeoutMs: number;

  /** `what` replaces the default "no complete answer" text (polling loops past their limit). */
  constructor(target: RequestTarget, timeoutMs: number, what?: string) {
    super('QB_ERR_TIMEOUT', `${describeTarget(target)}-> ${what ?? `no answer within ${timeoutMs} ms (headers, or a pause in the body)`}`, target, { timeoutMs });
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired (QB_ERR_ABORTED). */
export class RequestAbortedError extends ClientError {
  override readonly name = 'RequestAbortedError';

  constructor(target: RequestTarget, reason: unknown) {
    super('QB_ERR_ABORTED', `${describeTarget(target)}-> aborted${reason instanceof Error ? ` (${reason.message})` : ''}`, target);
  }
}

/** Connection refused, DNS failure, connect timeout (QB_ERR_UNREACHABLE) or a socket lost mid-request (QB_ERR_NETWORK). */
export class NetworkError extends ClientError {
  override readonly name = 'NetworkError';
  readonly causeSummary: CauseSummary;

  constructor(target: RequestTarget, cause: unknown, unreachable: boolean) {
    const summary = summarizeCause(cause);
    super(unreachable ? 'QB_ERR_UNREACHABLE' : 'QB_ERR_NETWORK', `${describeTarget(target)}-> ${unreachable ? 'unreachable' : 'connection failed'}: ${summary.code ? `${summary.code} ` : ''}${summary.message}`, target, {}, summary);
    this.causeSummary = summary;
  }

  protected override extraJson(): Record<string, unknown> {
    return { cause: this.causeSummary };
  }
}

/** A request the client refused to send because it breaks the spec schema (QB_ERR_INVALID_REQUEST). */
export class InvalidRequestError extends ClientError {
  override readonly name = 'InvalidRequestError';
  readonly issues: readonly z.core.$ZodIssue[];

  constructor(target: RequestTarget, what: string, pretty: string, issues: readonly z.core.$ZodIssue[]) {
    super('QB_ERR_INVALID_REQUEST', `${describeTarget(target)}-> invalid ${what}:\n${pretty}`, target);
    this.issues = issues;
  }

  protected override extraJson(): Record<string, unknown> {
    return { issues: this.issues };
  }
}

/** One entry of a GraphQL `errors` list. */
export interface GraphqlErrorEntry {
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly extensions?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** A GraphQL answer with `errors` (QB_ERR_GRAPHQL); keeps `errors` and whatever `data` came along. */
export class GraphqlError extends ClientError {
  override readonly name = 'GraphqlError';
  readonly errors: readonly GraphqlErrorEntry[];
  readonly data: Readonly<Record<string, unknown>> | null;
  readonly status: number;

  constructor(target: RequestTarget, status: number, errors: readonly GraphqlErrorEntry[], data: Record<string, unknown> | null) {
    const first = errors[0]?.message ?? 'no message';
    super('QB_ERR_GRAPHQL', `${describeTarget(target)}-> GraphQL errors (${errors.length}): ${first}`, target, { status, errorCount: errors.length });
    this.status = status;
    this.errors = errors.map((e) => ({ ...e, message: redactSecrets(e.message) }));
    this.data = data;
  }

  protected override extraJson(): Record<string, unknown> {
    return { status: this.status, errors: this.errors, data: this.data };
  }
}
