// The GraphQL pod client (src/client/pod-client.ts): every document parses and names one
// operation; against a scripted loopback server, auth, variables, input checks before
// sending, and GraphQL errors answered with HTTP 200 (§4.3, §5).
import { parse, type OperationDefinitionNode } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { PodClient } from '../../../src/client/pod-client.js';
import { DOCUMENTS, GRAPHQL_INPUT_TYPES } from '../../../src/client/graphql-documents.js';
import { NO_INSTANCES_MESSAGE } from '../../../src/spec/index.js';
import { sendJson, startLoopback, type Handler, type Loopback } from './loopback-server.js';

const KEY = 'pod-key-5521aa';
let server: Loopback | undefined;
let client: PodClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Handler, authForm?: 'query' | 'bearer'): Promise<{ s: Loopback; c: PodClient }> {
  server = await startLoopback(handler);
  client = new PodClient({ baseUrl: `${server.baseUrl}/graphql`, apiKey: KEY, ...(authForm ? { authForm } : {}) });
  return { s: server, c: client };
}

interface GqlBody {
  query: string;
  variables?: Record<string, unknown>;
}
const body = (s: Loopback, i: number) => JSON.parse(s.requests[i]!.body) as GqlBody;
const operationName = (doc: string) => (parse(doc).definitions[0] as OperationDefinitionNode).selectionSet.selections[0]!;

describe('GraphQL documents (§4.3)', () => {
  it('every document parses, declares its variables and names one operation field', () => {
    for (const [key, doc] of Object.entries(DOCUMENTS)) {
      const def = parse(doc).definitions[0] as OperationDefinitionNode;
      expect(def.kind, key).toBe('OperationDefinition');
      const field = operationName(doc);
      expect(field.kind).toBe('Field');
      if (def.variableDefinitions?.length) {
        expect(doc).toContain(Object.values(GRAPHQL_INPUT_TYPES).find((t) => doc.includes(t)) ?? 'no input type');
      }
    }
    expect(DOCUMENTS.podStop).toBe('mutation PodStop($input: PodStopInput!) { podStop(input: $input) { id desiredStatus } }');
  });
});

describe('PodClient (§4.3, §5)', () => {
  it('sends api_key on the address by default and Bearer when asked', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, { data: { podStop: { id: 'p1', desiredStatus: 'EXITED' } } }));
    expect(await c.stop('p1')).toEqual({ id: 'p1', desiredStatus: 'EXITED' });
    expect(s.requests[0]!.url.pathname).toBe('/graphql');
    expect(s.requests[0]!.url.searchParams.get('api_key')).toBe(KEY);
    expect(s.requests[0]!.headers['authorization']).toBeUndefined();
    expect(body(s, 0)).toEqual({ query: DOCUMENTS.podStop, variables: { input: { podId: 'p1' } } });
    const bearer = new PodClient({ baseUrl: `${s.baseUrl}/graphql`, apiKey: KEY, authForm: 'bearer' });
    try {
      await bearer.stop('p1');
    } finally {
      await bearer.close();
    }
    expect(s.requests[1]!.url.searchParams.has('api_key')).toBe(false);
    expect(s.requests[1]!.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('deploy, rent, resume and bid-resume pass their input as variables', async () => {
    const { s, c } = await setup((req, res) => {
      const q = (JSON.parse(req.body) as GqlBody).query;
      const op = /\{ (\w+)\(/.exec(q)?.[1] ?? 'none';
      sendJson(res, 200, { data: { [op]: { id: 'p9', imageName: 'img', desiredStatus: 'RUNNING', env: ['A=1'], machineId: 'm', machine: { podHostId: 'h' } } } });
    });
    const deploy = { gpuCount: 1, gpuTypeId: 'NVIDIA A40', imageName: 'img', cloudType: 'SECURE' as const, ports: '8888/http,22/tcp', env: [{ key: 'A', value: '1' }] };
    expect((await c.deployOnDemand(deploy)).machine).toEqual({ podHostId: 'h' });
    await c.rentInterruptable({ ...deploy, bidPerGpu: 0.2 });
    await c.resume({ podId: 'p9', gpuCount: 1 });
    await c.bidResume({ podId: 'p9', gpuCount: 1, bidPerGpu: 0.3 });
    expect(s.requests.map((_, i) => body(s, i).query)).toEqual([DOCUMENTS.podFindAndDeployOnDemand, DOCUMENTS.podRentInterruptable, DOCUMENTS.podResume, DOCUMENTS.podBidResume]);
    expect(body(s, 1).variables).toEqual({ input: { ...deploy, bidPerGpu: 0.2 } });
  });

  it('refuses invalid inputs before sending', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, { data: {} }));
    await expect(c.deployOnDemand({ gpuCount: 0, gpuTypeId: 'x', imageName: 'i' })).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    await expect(c.deployOnDemand({ gpuCount: 1, gpuTypeId: 'x', imageName: 'i', ports: '70000/http' })).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    await expect(c.bidResume({ podId: 'p', gpuCount: 1, bidPerGpu: -1 })).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    expect(s.requests).toHaveLength(0);
  });

  it('queries myself.pods, pod and gpuTypes with and without lowestPrice', async () => {
    const { s, c } = await setup((req, res) => {
      const q = (JSON.parse(req.body) as GqlBody).query;
      if (q.includes('myself')) return sendJson(res, 200, { data: { myself: { pods: [{ id: 'a', runtime: { uptimeInSeconds: 5, ports: [], gpus: [], container: null } }] } } });
      if (q.includes('pod(')) return sendJson(res, 200, { data: { pod: null } });
      sendJson(res, 200, { data: { gpuTypes: [{ id: 'NVIDIA A40', memoryInGb: 48, lowestPrice: { minimumBidPrice: 0.2, uninterruptablePrice: 0.4, stockStatus: 'High', availableGpuCounts: [1, 2] } }] } });
    });
    expect((await c.myPods()).map((p) => p.id)).toEqual(['a']);
    expect(await c.pod('nope')).toBeNull();
    expect((await c.gpuTypes())[0]!.id).toBe('NVIDIA A40');
    const priced = await c.gpuTypes({ id: 'NVIDIA A40' }, { gpuCount: 1, secureCloud: true });
    expect(priced[0]!.lowestPrice?.stockStatus).toBe('High');
    expect(body(s, 2)).toEqual({ query: DOCUMENTS.gpuTypes, variables: {} });
    expect(body(s, 3)).toEqual({ query: DOCUMENTS.gpuTypesWithPrice, variables: { input: { id: 'NVIDIA A40' }, lowestPrice: { gpuCount: 1, secureCloud: true } } });
    expect(body(s, 0)).toEqual({ query: DOCUMENTS.myPods });
  });

  it('surfaces GraphQL errors (HTTP 200) as GraphqlError with errors and data', async () => {
    const answer = {
      errors: [{ message: NO_INSTANCES_MESSAGE, path: ['podFindAndDeployOnDemand'], extensions: { code: 'RUNPOD' } }],
      data: { podFindAndDeployOnDemand: null },
    };
    const { c } = await setup((_req, res) => sendJson(res, 200, answer));
    const err = await c.deployOnDemand({ gpuCount: 1, gpuTypeId: 'x', imageName: 'i' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'QB_ERR_GRAPHQL', status: 200, errors: answer.errors, data: answer.data });
    expect((err as Error).message).toContain(NO_INSTANCES_MESSAGE);
  });

  it('raw query returns data; a missing field is a schema mismatch; a 500 without errors is QB_ERR_HTTP', async () => {
    const { c } = await setup((_req, res, i) => {
      if (i === 0) return sendJson(res, 200, { data: { anything: 1 } });
      if (i === 1) return sendJson(res, 200, { data: {} });
      sendJson(res, 500, { message: 'down' });
    });
    const r = await c.query('query { anything }', { a: 1 });
    expect(r.data).toEqual({ anything: 1 });
    await expect(c.stop('p')).rejects.toMatchObject({ code: 'QB_ERR_SCHEMA_MISMATCH' });
    await expect(c.terminate('p')).rejects.toMatchObject({ code: 'QB_ERR_HTTP', status: 500 });
  });
});
