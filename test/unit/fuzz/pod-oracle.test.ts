// The fuzz oracle for §4.3 pod inputs: wrong types and broken ports refused, listed types
// accepted, what the spec leaves open left open, every class generated.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyPodInput } from '../../../src/fuzz/oracle.js';
import { POD_DEPLOY_FIELDS, podInputCase } from '../../../src/fuzz/pod-cases.js';

const REQUIRED = ['gpuCount', 'gpuTypeId', 'imageName'];
const base = { gpuCount: 1, gpuTypeId: 'A100', imageName: 'img' };
const at = (input: Record<string, unknown>) => classifyPodInput(input, POD_DEPLOY_FIELDS, REQUIRED).verdict;

describe('oracle: §4.3 pod inputs', () => {
  it('refuses wrong types and broken ports, accepts the listed types', () => {
    expect(at(base)).toBe('accept');
    expect(at({ ...base, gpuCount: '1' })).toBe('refuse');
    expect(at({ ...base, gpuCount: 1.5 })).toBe('refuse');
    expect(at({ ...base, imageName: 3 })).toBe('refuse');
    expect(at({ ...base, ports: '8888/http,22/tcp' })).toBe('accept');
    expect(at({ ...base, ports: 'http/8888' })).toBe('refuse');
    expect(at({ ...base, ports: '65536/tcp' })).toBe('refuse');
    expect(at({ ...base, env: [{ key: 'A', value: '1' }] })).toBe('accept');
    expect(at({ ...base, env: ['A=1'] })).toBe('refuse');
  });

  it('leaves open what the spec does not state', () => {
    expect(at({ gpuCount: 1, imageName: 'img' })).toBe('ambiguous');
    expect(at({ ...base, ports: '8888/udp' })).toBe('ambiguous');
    expect(at({ ...base, cloudType: 'COMMUNITY' })).toBe('ambiguous');
    expect(at({ ...base, extra: 1 })).toBe('ambiguous');
    expect(at({ ...base, allowedCudaVersions: '12.1' })).toBe('ambiguous');
  });

  it('generated inputs cover all three classes', () => {
    const seen = new Set(fc.sample(podInputCase(['A100']), { numRuns: 500, seed: 5 }).map((c) => at(c.input)));
    expect([...seen].sort()).toEqual(['accept', 'ambiguous', 'refuse']);
  });
});
