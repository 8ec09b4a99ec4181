// §2.7 and §4.3: the GPU catalogue as gpuTypes shows it, stockStatus and availableGpuCounts
// following the stock as pods come and go, the "no longer any instances" refusal,
// allowedCudaVersions and the vCPU / memory minimums, and spot interruption by on-demand demand.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- JSON answers are untyped; the tests assert their shape */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GPU_TYPES, MACHINES } from '../../../src/emulator/graphql/index.js';
import { GpuTypeRecord, NO_INSTANCES_MESSAGE, STOCK_STATUSES } from '../../../src/spec/index.js';
import { mountSubServices, TEST_API_KEY, type Mounted } from '../templates/mount.js';
import { gql, gqlData } from './gql-client.js';

let m: Mounted;
beforeEach(async () => {
  m = await mountSubServices();
});
afterEach(async () => {
  await m.close();
});

const POD = 'id desiredStatus machineId podType lastStatusChange runtime { uptimeInSeconds } gpuCount';
const DEPLOY = `mutation($input: PodFindAndDeployOnDemandInput!) { podFindAndDeployOnDemand(input: $input) { ${POD} } }`;
const SPOT = `mutation($input: PodRentInterruptableInput!) { podRentInterruptable(input: $input) { ${POD} } }`;
const GET = `query($id: String!) { pod(input: {podId: $id}) { ${POD} } }`;
const STOP = `mutation($id: String!) { podStop(input: {podId: $id}) { id } }`;
const BID_RESUME = `mutation($input: PodBidResumeInput!) { podBidResume(input: $input) { ${POD} } }`;
const TERMINATE = `mutation($id: String!) { podTerminate(input: {podId: $id}) }`;
const LOWEST = `query($id: String!, $q: GpuLowestPriceInput) { gpuTypes(input: {id: $id}) { lowestPrice(input: $q) {
  gpuName gpuTypeId minimumBidPrice uninterruptablePrice stockStatus availableGpuCounts maxUnreservedGpuCount totalCount rentedCount rentalPercentage } } }`;

const A4000 = 'NVIDIA RTX A4000';
const RTX4090 = 'NVIDIA GeForce RTX 4090';
const lowest = async (id: string, q: Record<string, unknown> = { gpuCount: 1 }) => (await gqlData(m.url, LOWEST, { id, q })).gpuTypes[0].lowestPrice;
const deploy = async (input: Record<string, unknown>) => (await gqlData(m.url, DEPLOY, { input: { imageName: 'img', cloudType: 'ALL', ...input } })).podFindAndDeployOnDemand;
const spot = async (input: Record<string, unknown>) => (await gqlData(m.url, SPOT, { input: { imageName: 'img', cloudType: 'ALL', ...input } })).podRentInterruptable;

describe('gpuTypes (§2.7)', () => {
  it('lists the whole catalogue with every §2.7 field, consistent with the catalogue module', async () => {
    const all = (await gqlData(m.url, `{ gpuTypes { id displayName memoryInGb secureCloud communityCloud maxGpuCount securePrice communityPrice secureSpotPrice communitySpotPrice
      lowestPrice(input: {gpuCount: 1}) { minimumBidPrice uninterruptablePrice stockStatus availableGpuCounts } } }`)).gpuTypes;
    expect(all.map((t: { id: string }) => t.id)).toEqual(GPU_TYPES.map((t) => t.id));
    // The catalogue prices exactly the clouds that have machines of each type.
    for (const spec of GPU_TYPES) {
      const clouds = new Set(MACHINES.filter((x) => x.gpuTypeId === spec.id).map((x) => x.cloud));
      expect(new Set(Object.keys(spec.prices)), spec.id).toEqual(clouds);
    }
    for (const t of all) {
      GpuTypeRecord.parse(t);
      const spec = GPU_TYPES.find((g) => g.id === t.id)!;
      expect(t.displayName).toBe(spec.displayName);
      expect(t.memoryInGb).toBe(spec.memoryInGb);
      expect(t.securePrice).toBe(spec.prices.SECURE?.onDemandPerGpuHr ?? null);
      expect(t.communityPrice).toBe(spec.prices.COMMUNITY?.onDemandPerGpuHr ?? null);
      expect(t.secureCloud).toBe(MACHINES.some((x) => x.gpuTypeId === t.id && x.cloud === 'SECURE'));
      expect(t.communityCloud).toBe(MACHINES.some((x) => x.gpuTypeId === t.id && x.cloud === 'COMMUNITY'));
      expect(STOCK_STATUSES).toContain(t.lowestPrice.stockStatus);
      const prices = Object.values(spec.prices);
      expect(t.lowestPrice.uninterruptablePrice).toBe(Math.min(...prices.map((p) => p.onDemandPerGpuHr)));
      expect(t.lowestPrice.minimumBidPrice).toBe(Math.min(...prices.map((p) => p.minimumBidPerGpuHr)));
      expect(t.lowestPrice.minimumBidPrice).toBeLessThan(t.lowestPrice.uninterruptablePrice);
    }
  });

  it('filters by id (an unknown id gives an empty list) and prices per cloud with secureCloud', async () => {
    expect((await gqlData(m.url, '{ gpuTypes(input: {id: "nope"}) { id } }')).gpuTypes).toEqual([]);
    expect((await gqlData(m.url, `{ gpuTypes(input: {ids: ["${A4000}", "${RTX4090}"]}) { id } }`)).gpuTypes).toHaveLength(2);
    expect(await lowest(RTX4090, { gpuCount: 1, secureCloud: true })).toMatchObject({ uninterruptablePrice: 0.69, minimumBidPrice: 0.35 });
    expect(await lowest(RTX4090, { gpuCount: 1, secureCloud: false })).toMatchObject({ uninterruptablePrice: 0.34, minimumBidPrice: 0.2 });
    // A type the community cloud does not offer: no prices, no stock.
    expect(await lowest(A4000, { gpuCount: 1, secureCloud: false })).toMatchObject({ uninterruptablePrice: null, minimumBidPrice: null, stockStatus: 'None', availableGpuCounts: [] });
    // lowestPrice without input means one GPU.
    expect((await gqlData(m.url, `{ gpuTypes(input: {id: "${A4000}"}) { lowestPrice { availableGpuCounts } } }`)).gpuTypes[0].lowestPrice.availableGpuCounts).toHaveLength(8);
    const bad = await gql(m.url, LOWEST, { id: A4000, q: { gpuCount: 0 } });
    expect(bad.body.errors[0].message).toBe('input.gpuCount: must be at least 1');
  });
});

describe('stock follows the pods', () => {
  it('stockStatus steps High, Medium, Low, None at its thresholds; availableGpuCounts shrinks and grows back', async () => {
    // The RTX A4000 has one secure machine of 8 GPUs, none rented by others.
    const seen: [string, number[]][] = [];
    const pods: string[] = [];
    const record = async () => {
      const l = await lowest(A4000, { gpuCount: 1, secureCloud: true });
      seen.push([l.stockStatus, l.availableGpuCounts]);
      return l;
    };
    const first = await record();
    expect(first).toMatchObject({ totalCount: 8, rentedCount: 0, rentalPercentage: 0 });
    for (const gpus of [4, 1, 1, 1, 1]) {
      pods.push((await deploy({ gpuTypeId: A4000, gpuCount: gpus })).id);
      await record();
    }
    // free: 8 -> 4 (4/8 = 0.5: still High) -> 3 (Medium) -> 2 (0.25: Medium) -> 1 (0.125: Low) -> 0 (None)
    expect(seen.map(([s]) => s)).toEqual(['High', 'High', 'Medium', 'Medium', 'Low', 'None']);
    expect(seen.map(([, counts]) => counts.length)).toEqual([8, 4, 3, 2, 1, 0]);
    expect(seen[2]![1]).toEqual([1, 2, 3]);
    const full = await lowest(A4000, { gpuCount: 1, secureCloud: true });
    expect(full).toMatchObject({ rentedCount: 8, rentalPercentage: 100, maxUnreservedGpuCount: 0 });

    const refused = await gql(m.url, DEPLOY, { input: { imageName: 'img', gpuTypeId: A4000, gpuCount: 1 } });
    expect(refused.body).toEqual({
      errors: [expect.objectContaining({ message: NO_INSTANCES_MESSAGE, path: ['podFindAndDeployOnDemand'], extensions: { code: 'RUNPOD' } })],
      data: { podFindAndDeployOnDemand: null },
    });

    await gqlData(m.url, TERMINATE, { id: pods[0]! });
    expect(await lowest(A4000, { gpuCount: 1, secureCloud: true })).toMatchObject({ stockStatus: 'High', availableGpuCounts: [1, 2, 3, 4] });
  });

  it('stockStatus counts pod-sized slots: 3 free GPUs are one 2-GPU slot of four', async () => {
    await deploy({ gpuTypeId: A4000, gpuCount: 5 });
    expect(await lowest(A4000, { gpuCount: 2, secureCloud: true })).toMatchObject({ stockStatus: 'Medium', availableGpuCounts: [1, 2, 3] });
    expect(await lowest(A4000, { gpuCount: 4, secureCloud: true })).toMatchObject({ stockStatus: 'None' });
  });

  it('a type with every GPU rented by others has no stock and refuses deploys', async () => {
    expect(await lowest('NVIDIA B200')).toMatchObject({ stockStatus: 'None', availableGpuCounts: [], uninterruptablePrice: 5.99 });
    expect((await gql(m.url, DEPLOY, { input: { imageName: 'i', gpuTypeId: 'NVIDIA B200', gpuCount: 1 } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
    expect((await gql(m.url, SPOT, { input: { imageName: 'i', gpuTypeId: 'NVIDIA B200', gpuCount: 1, bidPerGpu: 9 } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
  });

  it('a request bigger than any machine gets no instances', async () => {
    expect((await gql(m.url, DEPLOY, { input: { imageName: 'i', gpuTypeId: A4000, gpuCount: 9 } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
    expect((await deploy({ gpuTypeId: A4000, gpuCount: 8 })).gpuCount).toBe(8);
  });
});

describe('concurrency and reset', () => {
  it('parallel deploys never take more GPUs than the machine has', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => gql(m.url, DEPLOY, { input: { imageName: 'i', gpuTypeId: A4000, gpuCount: 1 } })));
    const ok = answers.filter((a) => a.body.data.podFindAndDeployOnDemand !== null);
    const refused = answers.filter((a) => a.body.errors?.[0]?.message === NO_INSTANCES_MESSAGE);
    expect(ok).toHaveLength(8);
    expect(refused).toHaveLength(12);
    expect(new Set(ok.map((a) => a.body.data.podFindAndDeployOnDemand.id)).size).toBe(8);
    expect((await lowest(A4000)).stockStatus).toBe('None');
  });

  it('POST /_qbench/reset removes pods and templates and restores the stock', async () => {
    await deploy({ gpuTypeId: A4000, gpuCount: 8 });
    const tpl = await fetch(`${m.url}/v1/templates`, { method: 'POST', headers: { authorization: `Bearer ${TEST_API_KEY}` }, body: JSON.stringify({ name: 'r', imageName: 'i' }) });
    expect(tpl.status).toBe(200);
    await tpl.text();
    const reset = await fetch(`${m.url}/_qbench/reset`, { method: 'POST', headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(reset.status).toBe(200);
    await reset.text();
    expect((await gqlData(m.url, '{ myself { pods { id } } }')).myself.pods).toEqual([]);
    expect((await lowest(A4000)).availableGpuCounts).toHaveLength(8);
    const list = await fetch(`${m.url}/v1/templates`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(await list.json()).toEqual([]);
  });
});

describe('machine filters', () => {
  it('allowedCudaVersions restricts the machines', async () => {
    const byCuda = (v: string) => MACHINES.filter((x) => x.gpuTypeId === RTX4090 && x.cudaVersion === v).map((x) => x.id);
    for (const v of ['11.8', '12.2', '12.4']) {
      const pod = await deploy({ gpuTypeId: RTX4090, gpuCount: 1, allowedCudaVersions: [v] });
      expect(byCuda(v)).toContain(pod.machineId);
    }
    expect((await gql(m.url, DEPLOY, { input: { imageName: 'i', gpuTypeId: RTX4090, gpuCount: 1, allowedCudaVersions: ['10.2'] } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
    // A non-CUDA (AMD) machine never satisfies a CUDA restriction, and serves without one.
    expect((await gql(m.url, DEPLOY, { input: { imageName: 'i', gpuTypeId: 'AMD Instinct MI300X OAM', gpuCount: 1, allowedCudaVersions: ['12.4'] } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
    expect((await deploy({ gpuTypeId: 'AMD Instinct MI300X OAM', gpuCount: 1 })).desiredStatus).toBe('RUNNING');
  });

  it('cloudType picks the cloud; minVcpuCount and minMemoryInGb are met exactly at the boundary', async () => {
    const secure = await deploy({ gpuTypeId: RTX4090, gpuCount: 1, cloudType: 'SECURE' });
    expect(MACHINES.find((x) => x.id === secure.machineId)!.cloud).toBe('SECURE');
    const community = await deploy({ gpuTypeId: RTX4090, gpuCount: 1, cloudType: 'COMMUNITY' });
    expect(MACHINES.find((x) => x.id === community.machineId)!.cloud).toBe('COMMUNITY');
    const a4000 = MACHINES.find((x) => x.gpuTypeId === A4000)!;
    expect((await deploy({ gpuTypeId: A4000, gpuCount: 2, minVcpuCount: a4000.vcpuPerGpu * 2, minMemoryInGb: a4000.memoryInGbPerGpu * 2 })).desiredStatus).toBe('RUNNING');
    expect((await gql(m.url, DEPLOY, { input: { imageName: 'i', gpuTypeId: A4000, gpuCount: 2, minVcpuCount: a4000.vcpuPerGpu * 2 + 1 } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
    expect((await gql(m.url, DEPLOY, { input: { imageName: 'i', gpuTypeId: A4000, gpuCount: 2, minMemoryInGb: a4000.memoryInGbPerGpu * 2 + 1 } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
  });
});

describe('spot pods', () => {
  it('take only free GPUs: a full machine refuses spot, even with a high bid', async () => {
    await deploy({ gpuTypeId: A4000, gpuCount: 8 });
    expect((await gql(m.url, SPOT, { input: { imageName: 'i', gpuTypeId: A4000, gpuCount: 1, bidPerGpu: 5 } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
  });

  it('are interrupted (EXITED) when on-demand demand needs their GPUs, lowest bid first, and can bid-resume later', async () => {
    const cheap = await spot({ gpuTypeId: A4000, gpuCount: 4, bidPerGpu: 0.2 });
    const dear = await spot({ gpuTypeId: A4000, gpuCount: 4, bidPerGpu: 0.3 });
    expect(cheap.podType).toBe('INTERRUPTABLE');
    expect((await lowest(A4000)).stockStatus).toBe('None');

    const onDemand = await deploy({ gpuTypeId: A4000, gpuCount: 2 });
    expect(onDemand.desiredStatus).toBe('RUNNING');
    const cheapNow = (await gqlData(m.url, GET, { id: cheap.id })).pod;
    expect(cheapNow).toMatchObject({ id: cheap.id, desiredStatus: 'EXITED', runtime: null, machineId: cheap.machineId });
    expect(cheapNow.lastStatusChange).toMatch(/^Interrupted by system/);
    expect((await gqlData(m.url, GET, { id: dear.id })).pod.desiredStatus).toBe('RUNNING');
    // The interrupted pod's 4 GPUs: 2 went to the on-demand pod, 2 are free.
    expect((await lowest(A4000)).availableGpuCounts).toEqual([1, 2]);

    // It cannot come back while only 2 GPUs are free, and can once the on-demand pod stops.
    expect((await gql(m.url, BID_RESUME, { input: { podId: cheap.id, bidPerGpu: 0.2 } })).body.errors[0].extensions.code).toBe('RUNPOD');
    await gqlData(m.url, STOP, { id: onDemand.id });
    const back = (await gqlData(m.url, BID_RESUME, { input: { podId: cheap.id, bidPerGpu: 0.2 } })).podBidResume;
    expect(back).toMatchObject({ id: cheap.id, desiredStatus: 'RUNNING', podType: 'INTERRUPTABLE', gpuCount: 4 });
  });

  it('an on-demand request that spot pods cannot make room for leaves them running', async () => {
    const s = await spot({ gpuTypeId: A4000, gpuCount: 2, bidPerGpu: 0.2 });
    await deploy({ gpuTypeId: A4000, gpuCount: 6 });
    expect((await gql(m.url, DEPLOY, { input: { imageName: 'i', gpuTypeId: A4000, gpuCount: 3 } })).body.errors[0].message).toBe(NO_INSTANCES_MESSAGE);
    expect((await gqlData(m.url, GET, { id: s.id })).pod.desiredStatus).toBe('RUNNING');
  });

  it('an on-demand podResume also reclaims spot GPUs on its host', async () => {
    const od = await deploy({ gpuTypeId: A4000, gpuCount: 4 });
    await gqlData(m.url, STOP, { id: od.id });
    const s = await spot({ gpuTypeId: A4000, gpuCount: 8, bidPerGpu: 0.5 });
    const resumed = (await gqlData(m.url, `mutation($id: String!) { podResume(input: {podId: $id}) { id desiredStatus } }`, { id: od.id })).podResume;
    expect(resumed).toEqual({ id: od.id, desiredStatus: 'RUNNING' });
    expect((await gqlData(m.url, GET, { id: s.id })).pod.desiredStatus).toBe('EXITED');
  });
});
