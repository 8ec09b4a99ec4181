// §4.3, §5, §7 and WIRE-COMPAT GraphQL: both auth forms, the standard error shape with HTTP
// 200, malformed documents, and the two client styles (Python SDK literals, runpodctl variables).
/* eslint-disable @typescript-eslint/no-unsafe-call -- JSON answers are untyped; the tests assert their shape */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GraphqlAnswer, NO_INSTANCES_MESSAGE, PodRecord } from '../../../src/spec/index.js';
import { mountSubServices, TEST_API_KEY, type Mounted } from '../templates/mount.js';
import {
  CTL_BID_RESUME_POD, CTL_CREATE_POD, CTL_GET_PODS, CTL_LOWEST_PRICE, CTL_RESUME_POD, CTL_STOP_POD, CTL_TERMINATE_POD,
  ctlCreatePodInput, pythonDeployMutation, pythonGpuQuery, pythonPodQuery, pythonResumeMutation, pythonStopMutation,
  pythonTerminateMutation,
} from './documents.js';
import { gql, gqlData } from './gql-client.js';

let m: Mounted;
beforeEach(async () => {
  m = await mountSubServices();
});
afterEach(async () => {
  await m.close();
});

const MYSELF = '{ myself { pods { id } } }';

describe('§5 auth', () => {
  it('accepts ?api_key= and Authorization: Bearer', async () => {
    for (const auth of [{ kind: 'query' }, { kind: 'bearer' }] as const) {
      const r = await gql(m.url, MYSELF, undefined, auth);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ data: { myself: { pods: [] } } });
    }
  });

  it('answers 401 JSON {error} for a missing key, a wrong key and a raw (non-Bearer) header', async () => {
    for (const auth of [{ kind: 'none' }, { kind: 'query', key: 'wrong' }, { kind: 'bearer', key: 'wrong' }, { kind: 'raw-header' }, { kind: 'query', key: '' }] as const) {
      const r = await gql(m.url, MYSELF, undefined, auth);
      expect(r.status, JSON.stringify(auth)).toBe(401);
      expect(r.contentType).toMatch(/^application\/json/);
      expect(r.body.error).toMatch(/^api_key: /);
      expect(r.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(JSON.stringify(r.body)).not.toContain(TEST_API_KEY);
    }
  });

  it('graphql-auth-off fault: no key needed', async () => {
    await m.close();
    m = await mountSubServices({ faults: ['graphql-auth-off'] });
    expect((await gql(m.url, MYSELF, undefined, { kind: 'none' })).status).toBe(200);
  });
});

describe('errors: standard shape, HTTP 200, never a crash', () => {
  it('a syntax error, an unknown field and a wrong argument type are GraphQL errors with codes', async () => {
    const cases = [
      ['{ myself { pods { id }', 'GRAPHQL_PARSE_FAILED'],
      ['{ myself { pods { idx } } }', 'GRAPHQL_VALIDATION_FAILED'],
      ['mutation { podStop(input: { podId: 5 }) { id } }', 'GRAPHQL_VALIDATION_FAILED'],
      ['mutation { podNope { id } }', 'GRAPHQL_VALIDATION_FAILED'],
      ['', 'GRAPHQL_PARSE_FAILED'],
      ['{'.repeat(5000), 'GRAPHQL_PARSE_FAILED'],
    ] as const;
    for (const [query, code] of cases) {
      const r = await gql(m.url, query);
      expect(r.status, query.slice(0, 40)).toBe(200);
      const answer = GraphqlAnswer.parse(r.body);
      expect(answer.errors?.length).toBeGreaterThan(0);
      expect(answer.errors?.[0]?.extensions?.code).toBe(code);
      expect(r.body).not.toHaveProperty('data');
    }
    // The service still answers afterwards.
    expect((await gql(m.url, MYSELF)).status).toBe(200);
  });

  it('variables of the wrong type are refused before execution', async () => {
    const r = await gql(m.url, CTL_STOP_POD, { podId: 42 });
    expect(r.status).toBe(200);
    expect(r.body.errors[0].message).toMatch(/\$podId/);
    expect(r.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const missing = await gql(m.url, CTL_STOP_POD, {});
    expect(missing.body.errors[0].message).toMatch(/\$podId.*required/);
  });

  it('a request that is not GraphQL at all is a 400 with an errors list', async () => {
    for (const rawBody of ['{', '[]', '{"variables":{}}', '{"query": 5}', '']) {
      const r = await gql(m.url, '', undefined, { kind: 'query' }, rawBody);
      expect(r.status, rawBody).toBe(400);
      expect(r.body.errors[0].message).toMatch(/^(body|query)/);
      expect(r.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    }
  });

  it('GET is 405 with Allow: POST', async () => {
    const res = await fetch(`${m.url}/graphql?api_key=${TEST_API_KEY}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    await res.text();
  });

  it('a refusal carries message, path, extensions.code RUNPOD and data {op: null} (WIRE-COMPAT example)', async () => {
    const r = await gql(m.url, pythonDeployMutation({ name: 'x', imageName: 'img', gpuTypeId: 'NVIDIA B200', gpuCount: 1 }));
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ podFindAndDeployOnDemand: null });
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0]).toMatchObject({ message: NO_INSTANCES_MESSAGE, path: ['podFindAndDeployOnDemand'], extensions: { code: 'RUNPOD' } });
  });
});

describe('client styles', () => {
  it('the Python SDK (literal arguments) deploys, reads, stops, resumes and terminates a pod', async () => {
    const deployed = await gqlData(m.url, pythonDeployMutation({
      name: 'py-pod', imageName: 'runpod/pytorch:2.4.0', gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuCount: 1,
      volumeInGb: 40, containerDiskInGb: 10, ports: '8888/http, 22/tcp', env: { HF_HOME: '/workspace/hf' },
    }));
    const pod = deployed.podFindAndDeployOnDemand;
    expect(pod).toMatchObject({ imageName: 'runpod/pytorch:2.4.0', env: ['HF_HOME=/workspace/hf'] });
    expect(pod.id).toMatch(/^[a-z0-9]{14}$/);
    expect(pod.machine.podHostId.startsWith(`${pod.id}-`)).toBe(true);

    const read = (await gqlData(m.url, pythonPodQuery(pod.id))).pod;
    PodRecord.parse(read);
    expect(read).toMatchObject({ id: pod.id, name: 'py-pod', desiredStatus: 'RUNNING', ports: '8888/http,22/tcp', volumeInGb: 40, containerDiskInGb: 10, gpuCount: 1, podType: 'RESERVED', machineId: pod.machineId });
    expect(read.machine.gpuDisplayName).toBe('RTX 4090');

    expect((await gqlData(m.url, pythonStopMutation(pod.id))).podStop).toEqual({ id: pod.id, desiredStatus: 'EXITED' });
    const resumed = (await gqlData(m.url, pythonResumeMutation(pod.id, 1))).podResume;
    expect(resumed).toMatchObject({ id: pod.id, desiredStatus: 'RUNNING', imageName: 'runpod/pytorch:2.4.0', machineId: pod.machineId });
    expect(await gqlData(m.url, pythonTerminateMutation(pod.id))).toEqual({ podTerminate: null });
    expect((await gqlData(m.url, pythonPodQuery(pod.id))).pod).toBeNull();

    const gpu = (await gqlData(m.url, pythonGpuQuery('NVIDIA GeForce RTX 4090', 2))).gpuTypes;
    expect(gpu).toHaveLength(1);
    expect(gpu[0]).toMatchObject({ id: 'NVIDIA GeForce RTX 4090', displayName: 'RTX 4090', manufacturer: 'Nvidia', memoryInGb: 24, secureCloud: true, communityCloud: true, securePrice: 0.69, communityPrice: 0.34 });
    expect(gpu[0].lowestPrice).toEqual({ minimumBidPrice: 0.2, uninterruptablePrice: 0.34 });
  });

  it('runpodctl (variables) creates, lists, stops, resumes, bid-resumes and removes a pod', async () => {
    const created = (await gqlData(m.url, CTL_CREATE_POD, { input: ctlCreatePodInput({ gpuTypeId: 'NVIDIA L40S', gpuCount: 1, imageName: 'vllm/vllm-openai:v0.6.3' }) })).podFindAndDeployOnDemand;
    expect(created).toMatchObject({ desiredStatus: 'RUNNING', costPerHr: 0.86 });
    expect(created.lastStatusChange).toMatch(/^Rented by User: /);

    const pods = (await gqlData(m.url, CTL_GET_PODS)).myself.pods;
    expect(pods).toHaveLength(1);
    expect(pods[0]).toMatchObject({ id: created.id, name: 'vllm/vllm-openai', env: ['JUPYTER_PASSWORD=pw'], gpuCount: 1, volumeInGb: 20, volumeMountPath: '/workspace', containerDiskInGb: 10, port: 8888 });

    expect((await gqlData(m.url, CTL_STOP_POD, { podId: created.id })).podStop).toMatchObject({ id: created.id, desiredStatus: 'EXITED' });
    expect((await gqlData(m.url, CTL_RESUME_POD, { podId: created.id })).podResume).toMatchObject({ id: created.id, desiredStatus: 'RUNNING', costPerHr: 0.86 });
    await gqlData(m.url, CTL_STOP_POD, { podId: created.id });
    const spot = (await gqlData(m.url, CTL_BID_RESUME_POD, { podId: created.id, bidPerGpu: 0.6 })).podBidResume;
    expect(spot).toMatchObject({ id: created.id, desiredStatus: 'RUNNING', costPerHr: 0.6 });
    expect(await gqlData(m.url, CTL_TERMINATE_POD, { podId: created.id })).toEqual({ podTerminate: null });
    expect((await gqlData(m.url, CTL_GET_PODS)).myself.pods).toEqual([]);

    const prices = (await gqlData(m.url, CTL_LOWEST_PRICE, { input: { gpuCount: 1, secureCloud: true } })).gpuTypes;
    const l40s = prices.find((p: { lowestPrice: { gpuTypeId: string } }) => p.lowestPrice.gpuTypeId === 'NVIDIA L40S');
    expect(l40s).toEqual({ memoryInGb: 48, lowestPrice: { gpuName: 'L40S', gpuTypeId: 'NVIDIA L40S', minimumBidPrice: 0.53, uninterruptablePrice: 0.86, minMemory: 62, minVcpu: 12 } });
  });

  it('a nullable $input variable works as well as a non-null one', async () => {
    const doc = `mutation podFindAndDeployOnDemand($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id desiredStatus } }`;
    const r = await gqlData(m.url, doc, { input: { cloudType: 'ALL', gpuCount: 1, gpuTypeId: 'NVIDIA RTX A6000', name: 'n', imageName: 'i', ports: '8888/http,22/tcp' } });
    expect(r.podFindAndDeployOnDemand.desiredStatus).toBe('RUNNING');
  });
});
