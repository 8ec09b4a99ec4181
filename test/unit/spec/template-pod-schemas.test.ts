// Boundary tests of the template (§2.5) and pod / GPU type (§2.6, §2.7, §4.3) schemas.
import { describe, expect, it } from 'vitest';
import {
  CREATE_ONLY_TEMPLATE_FIELDS,
  GpuTypeRecord,
  GraphqlAnswer,
  GraphqlRequest,
  LowestPriceInput,
  PodBidResumeInput,
  PodDeployInput,
  PodRecord,
  PodRentInterruptableInput,
  PodResumeInput,
  PortSpec,
  TEMPLATE_DEFAULTS,
  TemplateCreate,
  TemplateRecord,
  TemplateUpdate,
  applyTemplateDefaults,
  isPortEntry,
} from '../../../src/spec/index.js';
import { bad, ok, problems } from './schema-assert.js';


const minimal = { name: 'tpl', imageName: 'repo/image:1' };

describe('§2.5 ports entries', () => {
  it('port 1 and 65535 accepted, 0 and 65536 rejected; protocol http or tcp only', () => {
    for (const p of ['1/http', '1/tcp', '65535/http', '65535/tcp', '8888/http', '22/tcp']) ok(PortSpec, p);
    for (const p of ['0/http', '65536/tcp', '99999/http', '80/udp', '80/HTTP', '80', 'http/80', '80/', '/http', '-1/tcp', '80/http ', ' 80/http', '80/http,22/tcp', 80]) bad(PortSpec, p);
    expect(isPortEntry('65535/tcp')).toBe(true);
    expect(isPortEntry('65536/tcp')).toBe(false);
  });
});

describe('§2.5 template create body', () => {
  it('requires imageName and name', () => {
    ok(TemplateCreate, minimal);
    bad(TemplateCreate, { name: 'x' });
    bad(TemplateCreate, { imageName: 'x' });
    bad(TemplateCreate, { ...minimal, name: '' });
    const text = problems(TemplateCreate, {});
    expect(text).toContain('imageName');
    expect(text).toContain('name');
  });

  it('category is NVIDIA, AMD or CPU', () => {
    for (const category of ['NVIDIA', 'AMD', 'CPU']) ok(TemplateCreate, { ...minimal, category });
    for (const category of ['nvidia', 'TPU', '', 1]) bad(TemplateCreate, { ...minimal, category });
  });

  it('disk sizes are whole non-negative GB', () => {
    for (const field of ['containerDiskInGb', 'volumeInGb']) {
      ok(TemplateCreate, { ...minimal, [field]: 0 });
      ok(TemplateCreate, { ...minimal, [field]: 1000 });
      bad(TemplateCreate, { ...minimal, [field]: -1 });
      bad(TemplateCreate, { ...minimal, [field]: 1.5 });
      bad(TemplateCreate, { ...minimal, [field]: '50' });
    }
  });

  it('volumeMountPath must be absolute', () => {
    for (const volumeMountPath of ['/workspace', '/', '/data/models']) ok(TemplateCreate, { ...minimal, volumeMountPath });
    for (const volumeMountPath of ['workspace', './workspace', '../x', '', '~/x']) bad(TemplateCreate, { ...minimal, volumeMountPath });
    expect(problems(TemplateCreate, { ...minimal, volumeMountPath: 'workspace' })).toContain('volumeMountPath must be an absolute path');
  });

  it('lists, env and flags are typed; unknown fields refused', () => {
    ok(TemplateCreate, { ...minimal, dockerEntrypoint: [], dockerStartCmd: ['python', 'app.py'], env: { A: '1' }, isPublic: true, isServerless: true, readme: '# hi', containerRegistryAuthId: 'r1', ports: [] });
    bad(TemplateCreate, { ...minimal, dockerStartCmd: 'python app.py' });
    bad(TemplateCreate, { ...minimal, dockerEntrypoint: [1] });
    bad(TemplateCreate, { ...minimal, env: { A: 1 } });
    bad(TemplateCreate, { ...minimal, env: ['A=1'] });
    bad(TemplateCreate, { ...minimal, isPublic: 'yes' });
    bad(TemplateCreate, { ...minimal, ports: '8888/http' });
    bad(TemplateCreate, { ...minimal, ports: ['8888/http', '80/udp'] });
    bad(TemplateCreate, { ...minimal, gpuCount: 1 });
  });

  it('reports every problem at once, naming each field', () => {
    const text = problems(TemplateCreate, { name: 'n', imageName: 'i', ports: ['80/udp'], volumeMountPath: 'rel', containerDiskInGb: -1 });
    for (const f of ['ports', 'volumeMountPath', 'containerDiskInGb']) expect(text).toContain(f);
  });

  it('defaults: NVIDIA, 50 GB disk, 20 GB volume, /workspace, empty lists and readme, not public, not serverless', () => {
    const d = applyTemplateDefaults(TemplateCreate.parse(minimal));
    expect(d).toEqual({
      ...minimal, category: 'NVIDIA', containerDiskInGb: 50, volumeInGb: 20, volumeMountPath: '/workspace',
      dockerEntrypoint: [], dockerStartCmd: [], readme: '', isPublic: false, isServerless: false,
    });
    expect(d.dockerEntrypoint).not.toBe(TEMPLATE_DEFAULTS.dockerEntrypoint);
    const given = applyTemplateDefaults(TemplateCreate.parse({ ...minimal, category: 'CPU', volumeInGb: 0, isServerless: true }));
    expect([given.category, given.volumeInGb, given.isServerless]).toEqual(['CPU', 0, true]);
  });
});

describe('§2.5 template update body', () => {
  it('every field optional; create-only fields refused', () => {
    ok(TemplateUpdate, {});
    ok(TemplateUpdate, { readme: 'x', ports: ['1/tcp'], volumeMountPath: '/v' });
    expect(CREATE_ONLY_TEMPLATE_FIELDS).toEqual(['category', 'isServerless']);
    bad(TemplateUpdate, { category: 'NVIDIA' });
    bad(TemplateUpdate, { isServerless: false });
    expect(problems(TemplateUpdate, { category: 'AMD' })).toContain('category');
  });

  it('applies the create rules to the fields it takes', () => {
    bad(TemplateUpdate, { ports: ['80/udp'] });
    bad(TemplateUpdate, { volumeMountPath: 'relative/path' });
    bad(TemplateUpdate, { name: '' });
    bad(TemplateUpdate, { volumeInGb: -1 });
  });
});

describe('§2.5 template record', () => {
  const record = { id: 't', ...minimal, ...TEMPLATE_DEFAULTS, earned: 1.25, isProvider: false, isRunpod: false, runtimeInMin: 3 };
  it('accepts the echoed record with earned, isProvider, runtimeInMin (and isRunpod)', () => {
    ok(TemplateRecord, record);
    ok(TemplateRecord, { ...record, env: { A: 'b' }, ports: ['8888/http'], containerRegistryAuthId: 'r' });
    for (const k of ['id', 'earned', 'isProvider', 'runtimeInMin', 'category']) {
      const partial: Record<string, unknown> = { ...record };
      delete partial[k];
      bad(TemplateRecord, partial);
    }
    bad(TemplateRecord, { ...record, runtimeInMin: 0.5 });
  });
});

describe('§4.3 pod inputs', () => {
  const deploy = { gpuCount: 1, gpuTypeId: 'NVIDIA A40', imageName: 'img' };
  it('gpuCount at least 1; ports entries in range; cloud type enum; env as {key, value}', () => {
    ok(PodDeployInput, deploy);
    ok(PodDeployInput, { ...deploy, cloudType: 'ALL', ports: '8888/http,22/tcp', env: [{ key: 'A', value: '1' }], allowedCudaVersions: ['12.1'], volumeMountPath: '/workspace', minVcpuCount: 0 });
    bad(PodDeployInput, { ...deploy, gpuCount: 0 });
    bad(PodDeployInput, { ...deploy, gpuCount: 1.5 });
    bad(PodDeployInput, { ...deploy, ports: '8888/udp' });
    bad(PodDeployInput, { ...deploy, ports: '65536/http' });
    bad(PodDeployInput, { ...deploy, cloudType: 'PRIVATE' });
    bad(PodDeployInput, { ...deploy, env: [{ key: 'A', value: 1 }] });
    bad(PodDeployInput, { ...deploy, env: ['A=1'] });
    bad(PodDeployInput, { gpuCount: 1, imageName: 'img' });
  });

  it('spot inputs need a positive bidPerGpu; resume needs podId and gpuCount', () => {
    ok(PodRentInterruptableInput, { ...deploy, bidPerGpu: 0.01 });
    bad(PodRentInterruptableInput, { ...deploy, bidPerGpu: 0 });
    bad(PodRentInterruptableInput, deploy);
    ok(PodResumeInput, { podId: 'p', gpuCount: 1 });
    bad(PodResumeInput, { podId: 'p', gpuCount: 0 });
    ok(PodBidResumeInput, { podId: 'p', gpuCount: 1, bidPerGpu: 0.2 });
    bad(PodBidResumeInput, { podId: 'p', gpuCount: 1 });
    ok(LowestPriceInput, { gpuCount: 1, secureCloud: false });
    bad(LowestPriceInput, { gpuCount: 0 });
  });
});

describe('§2.6 pod, §2.7 GPU type and GraphQL bodies', () => {
  it('pod record: id required, selected fields typed', () => {
    ok(PodRecord, { id: 'p' });
    ok(PodRecord, {
      id: 'p', name: 'n', imageName: 'i', env: ['A=1'], machineId: 'm', machine: { podHostId: 'h' }, desiredStatus: 'RUNNING',
      runtime: { uptimeInSeconds: 10, ports: [{ ip: '1.2.3.4', isIpPublic: true, privatePort: 22, publicPort: 10022, type: 'tcp' }], gpus: [{ id: 'g', gpuUtilPercent: 50, memoryUtilPercent: 10 }], container: { cpuPercent: 1, memoryPercent: 2 } },
    });
    bad(PodRecord, { name: 'n' });
    bad(PodRecord, { id: 'p', env: { A: '1' } });
    bad(PodRecord, { id: 'p', runtime: { uptimeInSeconds: 1.5 } });
  });

  it('GPU type: stockStatus High, Medium, Low or None', () => {
    for (const stockStatus of ['High', 'Medium', 'Low', 'None']) ok(GpuTypeRecord, { id: 'g', lowestPrice: { stockStatus } });
    bad(GpuTypeRecord, { id: 'g', lowestPrice: { stockStatus: 'high' } });
    bad(GpuTypeRecord, { id: 'g', memoryInGb: 1.5 });
    ok(GpuTypeRecord, { id: 'g', lowestPrice: { minimumBidPrice: 0.1, uninterruptablePrice: 0.2, availableGpuCounts: [1, 2, 4] } });
  });

  it('GraphQL request and answer shapes', () => {
    ok(GraphqlRequest, { query: '{ myself { id } }' });
    ok(GraphqlRequest, { query: 'mutation($input: X!) { a(input: $input) }', variables: { input: {} } });
    bad(GraphqlRequest, { variables: {} });
    ok(GraphqlAnswer, { data: { podStop: { id: 'p' } } });
    ok(GraphqlAnswer, { errors: [{ message: 'm', path: ['podStop', 0], extensions: { code: 'RUNPOD' } }], data: null });
    bad(GraphqlAnswer, { errors: [{ path: ['x'] }] });
  });
});
