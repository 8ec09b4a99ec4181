// §2.6, §3.2, §4.3: a pod's life (deploy, stop keeping id/volume/machine, resume, terminate),
// runtime figures consistent with the emulator clock, every input rule with both sides of
// its boundary, pods from a template, and the two pod fault switches.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- JSON answers are untyped; the tests assert their shape */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { gpuUuidOf, HOST_FULL_MESSAGE, MACHINES, podUtilisation, WARMUP_SECONDS } from '../../../src/emulator/graphql/index.js';
import { PodRecord, SECOND_MS, TEMPLATE_DEFAULTS } from '../../../src/spec/index.js';
import { mountSubServices, type Mounted } from '../templates/mount.js';
import { rest } from '../templates/rest-client.js';
import { FULL_POD_FIELDS } from './documents.js';
import { gql, gqlData } from './gql-client.js';

let m: Mounted;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 1));
  m = await mountSubServices({ clock });
});
afterEach(async () => {
  await m.close();
});

const DEPLOY = `mutation($input: PodFindAndDeployOnDemandInput!) { podFindAndDeployOnDemand(input: $input) { ${FULL_POD_FIELDS} } }`;
const SPOT = `mutation($input: PodRentInterruptableInput!) { podRentInterruptable(input: $input) { ${FULL_POD_FIELDS} } }`;
const GET = `query($id: String!) { pod(input: {podId: $id}) { ${FULL_POD_FIELDS} } }`;
const STOP = `mutation($id: String!) { podStop(input: {podId: $id}) { ${FULL_POD_FIELDS} } }`;
const RESUME = `mutation($input: PodResumeInput!) { podResume(input: $input) { ${FULL_POD_FIELDS} } }`;
const BID_RESUME = `mutation($input: PodBidResumeInput!) { podBidResume(input: $input) { ${FULL_POD_FIELDS} } }`;
const TERMINATE = `mutation($id: String!) { podTerminate(input: {podId: $id}) }`;
const FREE = `query($id: String!) { gpuTypes(input: {id: $id}) { lowestPrice(input: {gpuCount: 1}) { maxUnreservedGpuCount availableGpuCounts } } }`;

const A4000 = 'NVIDIA RTX A4000';
const base = (over: Record<string, unknown> = {}) => ({ gpuTypeId: A4000, gpuCount: 1, imageName: 'img:1', cloudType: 'SECURE', ...over });
const deploy = async (over: Record<string, unknown> = {}) => (await gqlData(m.url, DEPLOY, { input: base(over) })).podFindAndDeployOnDemand;
const getPod = async (id: string) => (await gqlData(m.url, GET, { id })).pod;
const freeGpus = async (type = A4000): Promise<number> => (await gqlData(m.url, FREE, { id: type })).gpuTypes[0].lowestPrice.maxUnreservedGpuCount;

describe('deploy and runtime figures (§2.6)', () => {
  it('fills every pod field, with defaults of §2.5 for disk, volume and mount path', async () => {
    const pod = await deploy({ gpuCount: 2, name: 'p', ports: '8888/http,22/tcp', env: [{ key: 'A', value: 'x=y' }] });
    PodRecord.parse(pod);
    const machine = MACHINES.find((x) => x.id === pod.machineId)!;
    expect(machine.gpuTypeId).toBe(A4000);
    expect(pod).toMatchObject({
      name: 'p', imageName: 'img:1', env: ['A=x=y'], desiredStatus: 'RUNNING', gpuCount: 2, podType: 'RESERVED',
      costPerHr: 0.64, vcpuCount: machine.vcpuPerGpu * 2, memoryInGb: machine.memoryInGbPerGpu * 2,
      volumeInGb: TEMPLATE_DEFAULTS.volumeInGb, containerDiskInGb: TEMPLATE_DEFAULTS.containerDiskInGb, volumeMountPath: TEMPLATE_DEFAULTS.volumeMountPath,
      machine: { gpuDisplayName: 'RTX A4000' }, uptimeSeconds: 0,
    });
    expect(pod.runtime.ports).toEqual([
      { ip: expect.stringMatching(/^100\.65\./), isIpPublic: false, privatePort: 8888, publicPort: 8888, type: 'http' },
      { ip: machine.publicIp, isIpPublic: true, privatePort: 22, publicPort: expect.any(Number), type: 'tcp' },
    ]);
    expect(pod.runtime.ports[1].publicPort).toBeGreaterThanOrEqual(10_000);
    expect(pod.runtime.gpus.map((g: { id: string }) => g.id)).toEqual([gpuUuidOf(pod.id, 0), gpuUuidOf(pod.id, 1)]);
  });

  it('uptime follows the emulator clock, and utilisation is the documented function of it', async () => {
    const pod = await deploy({ gpuCount: 2 });
    for (const seconds of [0, WARMUP_SECONDS - 1, WARMUP_SECONDS, 125, 3_600]) {
      const now = await getPod(pod.id);
      expect(now.runtime.uptimeInSeconds).toBe(seconds);
      expect(now.uptimeSeconds).toBe(seconds);
      const expected = podUtilisation(seconds, 2);
      expect(now.runtime.gpus.map((g: { gpuUtilPercent: number; memoryUtilPercent: number }) => ({ gpuUtilPercent: g.gpuUtilPercent, memoryUtilPercent: g.memoryUtilPercent }))).toEqual(expected.gpus);
      expect(now.runtime.container).toEqual({ cpuPercent: expected.cpuPercent, memoryPercent: expected.memoryPercent });
      const next = [WARMUP_SECONDS - 1, WARMUP_SECONDS, 125, 3_600, 3_601][[0, WARMUP_SECONDS - 1, WARMUP_SECONDS, 125, 3_600].indexOf(seconds)]!;
      clock.advance((next - seconds) * SECOND_MS);
    }
  });

  it('utilisation is idle during warm-up, busy after, and always within 0..100', () => {
    expect(podUtilisation(WARMUP_SECONDS - 1, 1).gpus[0]!.gpuUtilPercent).toBe(0);
    for (let t = WARMUP_SECONDS; t < WARMUP_SECONDS + 200; t++) {
      const u = podUtilisation(t, 3);
      for (const g of u.gpus) {
        expect(g.gpuUtilPercent).toBeGreaterThanOrEqual(60);
        expect(g.gpuUtilPercent).toBeLessThanOrEqual(100);
        expect(g.memoryUtilPercent).toBeLessThanOrEqual(100);
      }
      expect(u.cpuPercent).toBeLessThanOrEqual(100);
    }
  });
});

describe('stop and resume (§3.2)', () => {
  it('podStop: EXITED, GPU released, id, volume, mount path and machine kept; runtime gone', async () => {
    const before = await freeGpus();
    const pod = await deploy({ gpuCount: 3, volumeInGb: 77, volumeMountPath: '/data' });
    expect(await freeGpus()).toBe(before - 3);
    clock.advance(90 * SECOND_MS);
    const stopped = (await gqlData(m.url, STOP, { id: pod.id })).podStop;
    expect(stopped).toMatchObject({ id: pod.id, desiredStatus: 'EXITED', volumeInGb: 77, volumeMountPath: '/data', machineId: pod.machineId, runtime: null, uptimeSeconds: 0 });
    expect(stopped.lastStatusChange).toMatch(/^Exited by User: /);
    expect(await freeGpus()).toBe(before);
    // Stopping again changes nothing.
    expect((await gqlData(m.url, STOP, { id: pod.id })).podStop.desiredStatus).toBe('EXITED');
    expect(await freeGpus()).toBe(before);
  });

  it('podResume: RUNNING again with the same id, machine and volume; uptime restarts; gpuCount may change', async () => {
    const pod = await deploy({ gpuCount: 2, volumeInGb: 30 });
    clock.advance(60 * SECOND_MS);
    await gqlData(m.url, STOP, { id: pod.id });
    clock.advance(60 * SECOND_MS);
    const resumed = (await gqlData(m.url, RESUME, { input: { podId: pod.id, gpuCount: 1 } })).podResume;
    expect(resumed).toMatchObject({ id: pod.id, desiredStatus: 'RUNNING', machineId: pod.machineId, volumeInGb: 30, gpuCount: 1, uptimeSeconds: 0, costPerHr: 0.32 });
    expect(resumed.lastStatusChange).toMatch(/^Resumed by User: /);
    clock.advance(5 * SECOND_MS);
    expect((await getPod(pod.id)).runtime.uptimeInSeconds).toBe(5);
    // Without gpuCount (runpodctl) the pod keeps its count.
    await gqlData(m.url, STOP, { id: pod.id });
    expect((await gqlData(m.url, RESUME, { input: { podId: pod.id } })).podResume.gpuCount).toBe(1);
  });

  it('resume needs stock on the pod\'s own host: refused while it is full, accepted once a GPU frees', async () => {
    const pod = await deploy({ gpuCount: 2 });
    await gqlData(m.url, STOP, { id: pod.id });
    const filler = await deploy({ gpuCount: await freeGpus() });
    expect(await freeGpus()).toBe(0);
    const refused = await gql(m.url, RESUME, { input: { podId: pod.id } });
    expect(refused.body.errors[0]).toMatchObject({ message: HOST_FULL_MESSAGE, extensions: { code: 'RUNPOD' }, path: ['podResume'] });
    expect((await getPod(pod.id)).desiredStatus).toBe('EXITED');
    await gqlData(m.url, STOP, { id: filler.id });
    expect((await gqlData(m.url, RESUME, { input: { podId: pod.id } })).podResume.desiredStatus).toBe('RUNNING');
  });

  it('resume honours allowedCudaVersions of the host', async () => {
    const pod = await deploy();
    await gqlData(m.url, STOP, { id: pod.id });
    const cuda = MACHINES.find((x) => x.id === pod.machineId)!.cudaVersion!;
    const refused = await gql(m.url, RESUME, { input: { podId: pod.id, allowedCudaVersions: ['10.2'] } });
    expect(refused.body.errors[0].message).toContain(`CUDA ${cuda}`);
    expect((await gqlData(m.url, RESUME, { input: { podId: pod.id, allowedCudaVersions: ['10.2', cuda] } })).podResume.desiredStatus).toBe('RUNNING');
  });

  it('refuses to resume a running pod and to act on an unknown one', async () => {
    const pod = await deploy();
    expect((await gql(m.url, RESUME, { input: { podId: pod.id } })).body.errors[0].message).toMatch(/already running/);
    for (const [doc, vars] of [
      [RESUME, { input: { podId: 'nope' } }],
      [BID_RESUME, { input: { podId: 'nope', bidPerGpu: 1 } }],
      [STOP, { id: 'nope' }],
      [TERMINATE, { id: 'nope' }],
    ] as const) {
      const r = await gql(m.url, doc, vars);
      expect(r.body.errors[0]).toMatchObject({ message: 'Pod not found: nope', extensions: { code: 'RUNPOD' } });
    }
    expect((await gqlData(m.url, GET, { id: 'nope' })).pod).toBeNull();
  });

  it('podTerminate removes the pod and returns its GPUs', async () => {
    const before = await freeGpus();
    const pod = await deploy({ gpuCount: 2 });
    expect(await gqlData(m.url, TERMINATE, { id: pod.id })).toEqual({ podTerminate: null });
    expect(await getPod(pod.id)).toBeNull();
    expect(await freeGpus()).toBe(before);
  });

  it('myself.pods lists every pod and currentSpendPerHr sums the running ones', async () => {
    const a = await deploy({ gpuCount: 1 });
    const b = await deploy({ gpuCount: 2 });
    await gqlData(m.url, STOP, { id: a.id });
    const me = (await gqlData(m.url, `{ myself { id currentSpendPerHr pods { id desiredStatus } } }`)).myself;
    expect(me.pods).toEqual([{ id: a.id, desiredStatus: 'EXITED' }, { id: b.id, desiredStatus: 'RUNNING' }]);
    expect(me.currentSpendPerHr).toBe(0.64);
  });
});

describe('input rules, both sides of each boundary (§4.3)', () => {
  const cases: { name: string; bad: Record<string, unknown>; good: Record<string, unknown>; field: string }[] = [
    { name: 'gpuCount', bad: { gpuCount: 0 }, good: { gpuCount: 1 }, field: 'input.gpuCount' },
    { name: 'volumeInGb', bad: { volumeInGb: -1 }, good: { volumeInGb: 0 }, field: 'input.volumeInGb' },
    { name: 'containerDiskInGb', bad: { containerDiskInGb: -1 }, good: { containerDiskInGb: 0 }, field: 'input.containerDiskInGb' },
    { name: 'minVcpuCount', bad: { minVcpuCount: -1 }, good: { minVcpuCount: 0 }, field: 'input.minVcpuCount' },
    { name: 'minMemoryInGb', bad: { minMemoryInGb: -1 }, good: { minMemoryInGb: 0 }, field: 'input.minMemoryInGb' },
    { name: 'ports low', bad: { ports: '0/http' }, good: { ports: '1/http' }, field: 'input.ports' },
    { name: 'ports high', bad: { ports: '65536/tcp' }, good: { ports: '65535/tcp' }, field: 'input.ports' },
    { name: 'ports protocol', bad: { ports: '80/udp' }, good: { ports: '80/tcp' }, field: 'input.ports' },
    { name: 'volumeMountPath', bad: { volumeMountPath: 'data' }, good: { volumeMountPath: '/' }, field: 'input.volumeMountPath' },
    { name: 'imageName', bad: { imageName: '' }, good: { imageName: 'i' }, field: 'input.imageName' },
    { name: 'gpuTypeId', bad: { gpuTypeId: '' }, good: { gpuTypeId: A4000 }, field: 'input.gpuTypeId' },
    { name: 'env key', bad: { env: [{ key: '', value: 'v' }] }, good: { env: [{ key: 'K', value: '' }] }, field: 'input.env[0].key' },
  ];
  it.each(cases)('$name', async ({ bad, good, field }) => {
    const r = await gql(m.url, DEPLOY, { input: base(bad) });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ podFindAndDeployOnDemand: null });
    expect(r.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(r.body.errors[0].extensions.problems.map((p: { field: string }) => p.field)).toEqual([field]);
    expect(r.body.errors[0].message.startsWith(`${field}: `)).toBe(true);
    expect((await gqlData(m.url, DEPLOY, { input: base(good) })).podFindAndDeployOnDemand.desiredStatus).toBe('RUNNING');
  });

  it('names every missing required field at once, and an unknown GPU type', async () => {
    const r = await gql(m.url, DEPLOY, { input: { cloudType: 'ALL' } });
    const fields = r.body.errors[0].extensions.problems.map((p: { field: string }) => p.field).sort();
    expect(fields).toEqual(['input.gpuCount', 'input.gpuTypeId', 'input.imageName']);
    const unknown = await gql(m.url, DEPLOY, { input: base({ gpuTypeId: 'NVIDIA GTX 280' }) });
    expect(unknown.body.errors[0].message).toBe('input.gpuTypeId: unknown GPU type "NVIDIA GTX 280" (query gpuTypes for the ids)');
    const noInput = await gql(m.url, 'mutation { podStop { id } }');
    expect(noInput.body.errors[0].message).toBe('input: is required');
  });

  it('spot: bidPerGpu must be above 0 and at least the minimum bid price', async () => {
    const minBid = (await gqlData(m.url, `{ gpuTypes(input: {id: "${A4000}"}) { lowestPrice(input: {gpuCount: 1, secureCloud: true}) { minimumBidPrice } } }`)).gpuTypes[0].lowestPrice.minimumBidPrice;
    expect(minBid).toBe(0.16);
    const zero = await gql(m.url, SPOT, { input: base({ bidPerGpu: 0 }) });
    expect(zero.body.errors[0].message).toBe('input.bidPerGpu: must be greater than 0');
    const missing = await gql(m.url, SPOT, { input: base() });
    expect(missing.body.errors[0].message).toBe('input.bidPerGpu: is required');
    const below = await gql(m.url, SPOT, { input: base({ bidPerGpu: 0.159 }) });
    expect(below.body.errors[0]).toMatchObject({ extensions: { code: 'RUNPOD' }, path: ['podRentInterruptable'] });
    expect(below.body.errors[0].message).toMatch(/below the minimum bid price of \$0\.160/);
    const at = (await gqlData(m.url, SPOT, { input: base({ bidPerGpu: minBid, gpuCount: 2 }) })).podRentInterruptable;
    expect(at).toMatchObject({ podType: 'INTERRUPTABLE', costPerHr: 0.32, desiredStatus: 'RUNNING' });
    // The same floor applies on podBidResume.
    await gqlData(m.url, STOP, { id: at.id });
    expect((await gql(m.url, BID_RESUME, { input: { podId: at.id, bidPerGpu: 0.15 } })).body.errors[0].message).toMatch(/below the minimum bid/);
    expect((await gqlData(m.url, BID_RESUME, { input: { podId: at.id, bidPerGpu: 0.2 } })).podBidResume).toMatchObject({ desiredStatus: 'RUNNING', costPerHr: 0.4 });
  });
});

describe('pods from a template (templateId)', () => {
  it('take image, env, ports, disk, volume and start command from a pod template; its runtimeInMin grows', async () => {
    const tpl = (await rest(m.url, 'POST', '/v1/templates', {
      name: 'jupyter', imageName: 'runpod/pytorch:2.4.0', env: { A: '1' }, ports: ['8888/http'], volumeInGb: 33, containerDiskInGb: 11, volumeMountPath: '/ws', dockerStartCmd: ['bash', '-c', 'sleep infinity'],
    })).body;
    const pod = (await gqlData(m.url, DEPLOY, { input: { gpuTypeId: A4000, gpuCount: 1, templateId: tpl.id } })).podFindAndDeployOnDemand;
    expect(pod).toMatchObject({ imageName: 'runpod/pytorch:2.4.0', env: ['A=1'], ports: '8888/http', volumeInGb: 33, containerDiskInGb: 11, volumeMountPath: '/ws' });
    const args = await gqlData(m.url, `query($id: String!) { pod(input: {podId: $id}) { dockerArgs templateId } }`, { id: pod.id });
    expect(args.pod).toEqual({ dockerArgs: 'bash -c sleep infinity', templateId: tpl.id });
    // Input fields win over the template's.
    const own = (await gqlData(m.url, DEPLOY, { input: { gpuTypeId: A4000, gpuCount: 1, templateId: tpl.id, imageName: 'other:1', volumeInGb: 5 } })).podFindAndDeployOnDemand;
    expect(own).toMatchObject({ imageName: 'other:1', volumeInGb: 5, env: ['A=1'] });

    clock.advance(10 * 60 * SECOND_MS);
    expect((await rest(m.url, 'GET', `/v1/templates/${tpl.id}`)).body.runtimeInMin).toBe(20);
    await gqlData(m.url, TERMINATE, { id: own.id });
    clock.advance(60 * SECOND_MS);
    // 10 min of the terminated pod stay counted; the live one adds its 11th minute.
    expect((await rest(m.url, 'GET', `/v1/templates/${tpl.id}`)).body.runtimeInMin).toBe(21);
  });

  it('refuses an unknown or a serverless template', async () => {
    const sls = (await rest(m.url, 'POST', '/v1/templates', { name: 'sls', imageName: 'w:1', isServerless: true })).body;
    expect((await gql(m.url, DEPLOY, { input: { gpuTypeId: A4000, gpuCount: 1, templateId: sls.id } })).body.errors[0].message).toMatch(/^input\.templateId: .*serverless/);
    expect((await gql(m.url, DEPLOY, { input: { gpuTypeId: A4000, gpuCount: 1, templateId: 'zzz' } })).body.errors[0].message).toBe('input.templateId: no template with id "zzz"');
    // runpodctl's empty templateId means none: the image is then required.
    expect((await gql(m.url, DEPLOY, { input: { gpuTypeId: A4000, gpuCount: 1, templateId: '' } })).body.errors[0].message).toBe('input.imageName: is required');
  });
});

describe('fault switches', () => {
  it('pod-stop-keeps-stock: podStop leaves the GPUs taken, the rest of the life is unchanged', async () => {
    await m.close();
    m = await mountSubServices({ clock, faults: ['pod-stop-keeps-stock'] });
    const before = await freeGpus();
    const pod = await deploy({ gpuCount: 2 });
    expect((await gqlData(m.url, STOP, { id: pod.id })).podStop.desiredStatus).toBe('EXITED');
    expect(await freeGpus()).toBe(before - 2);
    expect((await gqlData(m.url, RESUME, { input: { podId: pod.id } })).podResume).toMatchObject({ id: pod.id, desiredStatus: 'RUNNING' });
    expect(await freeGpus()).toBe(before - 2);
  });

  it('graphql-field-omitted: the first pod of an answer lacks the last field selected, the rest is whole', async () => {
    await m.close();
    m = await mountSubServices({ clock, faults: ['graphql-field-omitted'] });
    const types = (await gqlData(m.url, 'query { gpuTypes { id displayName memoryInGb } }')).gpuTypes as Record<string, unknown>[];
    expect(Object.keys(types[0]!)).toEqual(['id', 'displayName']);
    expect(Object.keys(types[1]!)).toEqual(['id', 'displayName', 'memoryInGb']);
  });

  it('pod-resume-new-id: podResume answers another id and the old one is gone', async () => {
    await m.close();
    m = await mountSubServices({ clock, faults: ['pod-resume-new-id'] });
    const pod = await deploy();
    await gqlData(m.url, STOP, { id: pod.id });
    const resumed = (await gqlData(m.url, RESUME, { input: { podId: pod.id } })).podResume;
    expect(resumed.id).not.toBe(pod.id);
    expect(resumed.machineId).toBe(pod.machineId);
    expect(await getPod(pod.id)).toBeNull();
    expect((await getPod(resumed.id)).desiredStatus).toBe('RUNNING');
  });
});
