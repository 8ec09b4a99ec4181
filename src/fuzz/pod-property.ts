// The §4.3 GraphQL pod-input property: podFindAndDeployOnDemand with generated `input`
// variables. A refusal is an answer with errors and no pod; an acceptance is any answer
// without a validation error (BAD_USER_INPUT, GRAPHQL_VALIDATION_FAILED or a request-level
// error with no path): a "no instances" refusal for stock is the service's, not validation's.
// Every pod it deploys is terminated at once. Pods cost money on a real target: opt in.
import { z } from 'zod';
import { GraphqlAnswer, HTTP_STATUS } from '../spec/index.js';
import { classifyPodInput, describeExpectation } from './oracle.js';
import { POD_DEPLOY_FIELDS, podInputCase, type PodInputCase } from './pod-cases.js';
import { Disagreement, observedText, type FuzzPropertyDef, type PropertyContext } from './property.js';
import type { FuzzAnswer } from './http.js';

const DEPLOY = 'podFindAndDeployOnDemand';
const DEPLOY_DOCUMENT = `mutation Deploy($input: PodFindAndDeployOnDemandInput!) { ${DEPLOY}(input: $input) { id imageName machineId } }`;
/** What a deploy needs in practice; the spec names none as required, so their absence is ambiguous. */
const USUALLY_REQUIRED = ['gpuCount', 'gpuTypeId', 'imageName'];
const VALIDATION_CODES = new Set(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_REQUEST']);

/** GPU type ids per fuzz run, read at setup. */
const gpuTypeIds = new Map<string, string[]>();

function gql(ctx: PropertyContext, query: string, variables?: Record<string, unknown>): Promise<FuzzAnswer> {
  return ctx.http.send(
    { operation: 'graphql', method: 'POST', url: ctx.target.graphqlUrl ?? '', auth: 'query-api-key', body: { kind: 'json', value: variables ? { query, variables } : { query } } },
    ctx.signal,
  );
}

type Outcome = { kind: 'refused'; why: string } | { kind: 'accepted'; podId?: string } | { kind: 'odd'; why: string };

function outcomeOf(a: FuzzAnswer): Outcome {
  if (a.status === null) return { kind: 'odd', why: 'no answer' };
  const parsed = GraphqlAnswer.safeParse(a.json);
  if (!parsed.success) return a.status >= 400 && a.status < 500 ? { kind: 'refused', why: `HTTP ${a.status}` } : { kind: 'odd', why: `not a GraphQL answer: ${z.prettifyError(parsed.error)}` };
  const errors = parsed.data.errors ?? [];
  const pod = parsed.data.data?.[DEPLOY] as { id?: unknown } | null | undefined;
  const codeOf = (e: (typeof errors)[number]) => {
    const c = e.extensions?.['code'];
    return typeof c === 'string' ? c : '';
  };
  const validation = errors.find((e) => e.path === undefined || VALIDATION_CODES.has(codeOf(e)));
  if (a.status >= 400 && a.status < 500) return { kind: 'refused', why: `HTTP ${a.status}` };
  if (validation) return { kind: 'refused', why: validation.message };
  if (pod && typeof pod.id === 'string') return { kind: 'accepted', podId: pod.id };
  if (errors.length > 0) return { kind: 'accepted' };
  return { kind: 'odd', why: `neither a pod nor errors under data.${DEPLOY}` };
}

export const podInputProperty: FuzzPropertyDef<PodInputCase> = {
  name: 'pod-input-validation',
  clause: { section: '§4.3', quote: 'podFindAndDeployOnDemand input fields: cloudType (enum), gpuCount, volumeInGb, containerDiskInGb, minVcpuCount, minMemoryInGb (integers), gpuTypeId, name, imageName, dockerArgs (strings), ports (<port>/<protocol>), volumeMountPath, env ({key, value}), allowedCudaVersions' },
  kind: 'validation',
  skipReason(ctx) {
    if (ctx.target.graphqlUrl === undefined) return 'no GraphQL address (--graphql-url)';
    if (ctx.target.kind === 'remote' && !ctx.allowBillable) return 'deploys pods, which cost money on a real target (--allow-billable)';
    return undefined;
  },
  async setup(ctx) {
    const a = await gql(ctx, 'query { gpuTypes { id } }');
    const ids = (GraphqlAnswer.safeParse(a.json).data?.data?.['gpuTypes'] as { id?: unknown }[] | undefined)?.map((t) => t.id).filter((id): id is string => typeof id === 'string') ?? [];
    if (a.status !== HTTP_STATUS.ok || ids.length === 0) throw new Disagreement('§4.3 gpuTypes answers a list of GPU types with ids', observedText(a), [a.exchange], a.curl);
    gpuTypeIds.set(ctx.runId, ids.slice(0, 3));
  },
  arbitrary: (ctx) => podInputCase(gpuTypeIds.get(ctx.runId) ?? ['unknown-gpu']),
  async check(ctx, c) {
    const e = classifyPodInput(c.input, POD_DEPLOY_FIELDS, USUALLY_REQUIRED);
    const a = await gql(ctx, DEPLOY_DOCUMENT, { input: c.input });
    const o = outcomeOf(a);
    if (o.kind === 'accepted' && o.podId !== undefined) {
      await gql(ctx, `mutation Terminate($input: PodTerminateInput!) { podTerminate(input: $input) }`, { input: { podId: o.podId } });
    }
    if (o.kind === 'odd') throw new Disagreement('a GraphQL answer with a pod or errors (WIRE-COMPAT)', `${observedText(a)} (${o.why})`, [a.exchange], a.curl);
    ctx.tally(e.verdict);
    if (e.verdict === 'ambiguous') return;
    const ok = e.verdict === 'accept' ? o.kind === 'accepted' : o.kind === 'refused';
    if (!ok) {
      const expected = e.verdict === 'accept' ? describeExpectation(e) : `refused (GraphQL errors, no pod): ${e.reason}`;
      throw new Disagreement(expected, `${observedText(a)}${o.kind === 'refused' ? ` (refused: ${o.why})` : ''}`, [a.exchange], a.curl);
    }
  },
  teardown(ctx) {
    gpuTypeIds.delete(ctx.runId);
    return Promise.resolve();
  },
  describe: (c) => `POST graphql ${DEPLOY}(input: ${JSON.stringify(c.input)})`,
};
