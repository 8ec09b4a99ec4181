// Validation of what clients send the queue endpoint (§2.1 body, §4.1 `wait` and `ttl`
// queries), on the spec's zod schemas. Each answer names every offending field. The fault
// switches that loosen one validation rule build their relaxed schema here.
import { z } from 'zod';
import { JobRequest, Policy, HttpUrl, JsonObject, S3Config, WaitQuery, StatusTtlQuery, QueryInt } from '../../spec/index.js';
import type { FaultSet } from '../faults.js';

export interface Issue {
  readonly path: string;
  readonly message: string;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string; readonly issues: readonly Issue[] };

export interface JobBody {
  input: Record<string, unknown>;
  webhook?: string | undefined;
  policy?: { executionTimeout?: number | undefined; ttl?: number | undefined; lowPriority?: boolean | undefined } | undefined;
  s3Config?: Record<string, unknown> | undefined;
}

function issuesOf(err: z.ZodError, prefix: string): Issue[] {
  return err.issues.map((i) => ({ path: [prefix, ...i.path.map(String)].filter(Boolean).join('.') || '(body)', message: i.message }));
}

function fail<T>(what: string, issues: Issue[]): Parsed<T> {
  return { ok: false, error: `${what}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues };
}

const anyInt = (what: string) => z.number({ error: `${what} must be a number` }).int({ error: `${what} must be a whole number` });

export class RequestValidator {
  private readonly body: z.ZodType<JobBody>;
  private readonly wait: z.ZodType<number, string>;
  private readonly ttl: z.ZodType<number, string>;

  constructor(faults: FaultSet) {
    const policy = faults.has('policy-bounds-unchecked')
      ? z.looseObject({ executionTimeout: anyInt('policy.executionTimeout').optional(), lowPriority: z.boolean().optional(), ttl: anyInt('policy.ttl').optional() })
      : Policy;
    const input = faults.has('missing-input-accepted') ? JsonObject.optional().transform((v) => v ?? {}) : JsonObject;
    this.body = faults.has('policy-bounds-unchecked') || faults.has('missing-input-accepted')
      ? z.looseObject({ input, webhook: HttpUrl.optional(), policy: policy.optional(), s3Config: S3Config.optional() })
      : JobRequest;
    this.wait = faults.has('wait-bounds-unchecked') ? QueryInt({ min: 0, max: Number.MAX_SAFE_INTEGER }, 'wait') : WaitQuery;
    this.ttl = StatusTtlQuery;
  }

  jobBody(value: unknown): Parsed<JobBody> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail('invalid request body', [{ path: '(body)', message: 'must be a JSON object with an input object' }]);
    }
    const r = this.body.safeParse(value);
    return r.success ? { ok: true, value: r.data } : fail('invalid request body', issuesOf(r.error, ''));
  }

  /** The `wait` query (/runsync, /status-sync); undefined when absent. */
  waitQuery(raw: string | null): Parsed<number | undefined> {
    if (raw === null) return { ok: true, value: undefined };
    const r = this.wait.safeParse(raw);
    return r.success ? { ok: true, value: r.data } : fail('invalid query', issuesOf(r.error, 'wait'));
  }

  /** The `ttl` query of /status; undefined when absent. */
  ttlQuery(raw: string | null): Parsed<number | undefined> {
    if (raw === null) return { ok: true, value: undefined };
    const r = this.ttl.safeParse(raw);
    return r.success ? { ok: true, value: r.data } : fail('invalid query', issuesOf(r.error, 'ttl'));
  }
}
