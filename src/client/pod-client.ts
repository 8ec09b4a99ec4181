// Typed client of the GraphQL pod interface (§4.3, §2.6, §2.7): every operation built with
// variables, plus a raw `query(document, variables)`. Auth per §5 (`?api_key=`) or Bearer
// (WIRE-COMPAT). A GraphQL `errors` list, which arrives with HTTP 200, is a GraphqlError.
import { z } from 'zod';
import {
  GpuTypeFilterInput,
  GpuTypeRecord,
  GraphqlAnswer,
  LowestPriceInput,
  PodBidResumeInput,
  PodDeployInput,
  PodFilterInput,
  PodRecord,
  PodRentInterruptableInput,
  PodResumeInput,
  PodStopInput,
  PodTerminateInput,
} from '../spec/index.js';
import { GraphqlError, SchemaMismatchError, type GraphqlErrorEntry } from './errors.js';
import { DOCUMENTS } from './graphql-documents.js';
import { HttpCore, type HttpAnswer, type HttpCoreOptions, type RequestOptions } from './http-core.js';

export interface PodClientOptions extends Omit<HttpCoreOptions, 'auth'> {
  /** `{graphql_url}`: the full GraphQL address (no version segment, §9). */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** §5 `query` sends `?api_key=KEY` (default); `bearer` sends `Authorization: Bearer KEY` (WIRE-COMPAT). */
  readonly authForm?: 'query' | 'bearer';
}

/** The decoded answer of a raw query: `data` as sent (no `errors`, or they would have thrown). */
export interface GraphqlResult {
  readonly data: Record<string, unknown> | null;
  readonly answer: HttpAnswer;
}

export type PodDeployVariables = z.input<typeof PodDeployInput>;
export type PodRentVariables = z.input<typeof PodRentInterruptableInput>;
export type PodResumeVariables = z.input<typeof PodResumeInput>;
export type PodBidResumeVariables = z.input<typeof PodBidResumeInput>;

const PodList = z.array(PodRecord);
const GpuTypeList = z.array(GpuTypeRecord);
const Myself = z.looseObject({ pods: PodList });
const Anything = z.unknown();

export class PodClient {
  readonly core: HttpCore;

  constructor(options: PodClientOptions) {
    const { apiKey, authForm = 'query', ...rest } = options;
    this.core = new HttpCore({
      ...rest,
      auth: authForm === 'bearer' ? { kind: 'header', apiKey, form: 'bearer' } : { kind: 'query', apiKey, param: 'api_key' },
    });
  }

  /**
   * POST a document with variables. Throws GraphqlError when the answer carries `errors`
   * (whatever the HTTP status), HttpStatusError for another non-2xx, SchemaMismatchError
   * when the answer is not a GraphQL answer.
   */
  async query(document: string, variables?: Record<string, unknown>, opts?: RequestOptions): Promise<GraphqlResult> {
    const answer = await this.core.send({ method: 'POST', path: '', json: variables === undefined ? { query: document } : { query: document, variables } }, opts, false);
    const ok = answer.status >= 200 && answer.status <= 299;
    let parsed: GraphqlAnswer;
    try {
      parsed = this.core.parse(answer, GraphqlAnswer, 'GraphqlAnswer');
    } catch (e) {
      if (!ok && e instanceof SchemaMismatchError) throw this.core.statusError(answer);
      throw e;
    }
    if (parsed.errors && parsed.errors.length > 0) {
      const err = new GraphqlError(answer.target, answer.status, parsed.errors as GraphqlErrorEntry[], parsed.data ?? null);
      err.attempts = answer.attempts;
      throw err;
    }
    if (!ok) throw this.core.statusError(answer);
    return { data: parsed.data ?? null, answer };
  }

  /** Run an operation and parse `data[field]` with `schema`. */
  private async operation<S extends z.ZodType>(field: string, document: string, variables: Record<string, unknown> | undefined, schema: S, schemaName: string, opts?: RequestOptions): Promise<z.output<S>> {
    const { data, answer } = await this.query(document, variables, opts);
    if (data === null || !(field in data)) {
      throw this.core.mismatch(answer, schemaName, 'schema', `data.${field} is missing`);
    }
    const value = data[field];
    if (!this.core.validateAnswers) return value as z.output<S>;
    const r = schema.safeParse(value);
    if (!r.success) throw this.core.mismatch(answer, schemaName, 'schema', z.prettifyError(r.error), r.error.issues);
    return r.data;
  }

  private input<S extends z.ZodType>(op: string, schema: S, value: unknown): { input: unknown } {
    this.core.checkRequest({ method: 'POST', path: '' }, schema, value, `${op} input`);
    return { input: value };
  }

  /** §4.3 podFindAndDeployOnDemand (on-demand pod). */
  async deployOnDemand(input: PodDeployVariables, opts?: RequestOptions): Promise<PodRecord> {
    return this.operation('podFindAndDeployOnDemand', DOCUMENTS.podFindAndDeployOnDemand, this.input('podFindAndDeployOnDemand', PodDeployInput, input), PodRecord, 'PodRecord', opts);
  }

  /** §4.3 podRentInterruptable (spot pod, with bidPerGpu). */
  async rentInterruptable(input: PodRentVariables, opts?: RequestOptions): Promise<PodRecord> {
    return this.operation('podRentInterruptable', DOCUMENTS.podRentInterruptable, this.input('podRentInterruptable', PodRentInterruptableInput, input), PodRecord, 'PodRecord', opts);
  }

  /** §4.3 podResume (on-demand): a stopped pod goes to RUNNING (§3.2). */
  async resume(input: PodResumeVariables, opts?: RequestOptions): Promise<PodRecord> {
    return this.operation('podResume', DOCUMENTS.podResume, this.input('podResume', PodResumeInput, input), PodRecord, 'PodRecord', opts);
  }

  /** §4.3 podBidResume (spot). */
  async bidResume(input: PodBidResumeVariables, opts?: RequestOptions): Promise<PodRecord> {
    return this.operation('podBidResume', DOCUMENTS.podBidResume, this.input('podBidResume', PodBidResumeInput, input), PodRecord, 'PodRecord', opts);
  }

  /** §4.3 podStop: a running pod goes to EXITED (§3.2). */
  async stop(podId: string, opts?: RequestOptions): Promise<PodRecord> {
    return this.operation('podStop', DOCUMENTS.podStop, this.input('podStop', PodStopInput, { podId }), PodRecord, 'PodRecord', opts);
  }

  /** WIRE-COMPAT podTerminate: returns a scalar (usually null). */
  async terminate(podId: string, opts?: RequestOptions): Promise<unknown> {
    return this.operation('podTerminate', DOCUMENTS.podTerminate, this.input('podTerminate', PodTerminateInput, { podId }), Anything, 'podTerminate scalar', opts);
  }

  /** §4.3 myself { pods { ... } }. */
  async myPods(opts?: RequestOptions): Promise<PodRecord[]> {
    const me = await this.operation('myself', DOCUMENTS.myPods, undefined, Myself, 'myself { pods }', opts);
    return me.pods;
  }

  /** §4.3 pod(input: {podId}); null when the service answers null. */
  async pod(podId: string, opts?: RequestOptions): Promise<PodRecord | null> {
    return this.operation('pod', DOCUMENTS.pod, this.input('pod', PodFilterInput, { podId }), PodRecord.nullable(), 'PodRecord', opts);
  }

  /** §4.3 gpuTypes, optionally filtered by `{id}`, with §2.7 lowestPrice when `lowestPrice` is given. */
  async gpuTypes(filter?: GpuTypeFilterInput, lowestPrice?: LowestPriceInput, opts?: RequestOptions): Promise<GpuTypeRecord[]> {
    if (filter !== undefined) this.input('gpuTypes', GpuTypeFilterInput, filter);
    const variables: Record<string, unknown> = filter === undefined ? {} : { input: filter };
    if (lowestPrice !== undefined) {
      this.core.checkRequest({ method: 'POST', path: '' }, LowestPriceInput, lowestPrice, 'lowestPrice input');
      variables['lowestPrice'] = lowestPrice;
    }
    const document = lowestPrice === undefined ? DOCUMENTS.gpuTypes : DOCUMENTS.gpuTypesWithPrice;
    return this.operation('gpuTypes', document, variables, GpuTypeList, 'GpuTypeRecord[]', opts);
  }

  close(): Promise<void> {
    return this.core.close();
  }
}
