// The project's own typed clients (src/client TemplateClient and PodClient) against the
// emulator's REST and GraphQL parts: the two sides of §4.2 / §4.3 written by different hands
// must agree on paths, auth, input type names and answer schemas.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodClient, TemplateClient } from '../../../src/client/index.js';
import { mountSubServices, TEST_API_KEY, type Mounted } from '../templates/mount.js';

let m: Mounted;
let templates: TemplateClient;
let pods: PodClient;
beforeEach(async () => {
  m = await mountSubServices();
  templates = new TemplateClient({ baseUrl: m.url, apiKey: TEST_API_KEY });
  pods = new PodClient({ baseUrl: `${m.url}/graphql`, apiKey: TEST_API_KEY });
});
afterEach(async () => {
  await templates.close();
  await pods.close();
  await m.close();
});

describe('src/client against the emulator', () => {
  it('TemplateClient: create, update both ways, get, list, delete', async () => {
    const t = await templates.create({ name: 'interop', imageName: 'img:1', ports: ['8888/http'] });
    expect(t.volumeMountPath).toBe('/workspace');
    expect((await templates.update(t.id, { imageName: 'img:2' })).imageName).toBe('img:2');
    expect((await templates.update(t.id, { readme: 'hi' }, { via: 'patch' })).readme).toBe('hi');
    expect((await templates.get(t.id)).imageName).toBe('img:2');
    expect((await templates.list()).map((x) => x.id)).toEqual([t.id]);
    await templates.delete(t.id);
    await expect(templates.get(t.id)).rejects.toMatchObject({ status: 404 });
  });

  it('PodClient (?api_key= and Bearer): deploy, read, stop, resume, terminate, gpuTypes with lowestPrice', async () => {
    for (const authForm of ['query', 'bearer'] as const) {
      const client = new PodClient({ baseUrl: `${m.url}/graphql`, apiKey: TEST_API_KEY, authForm });
      try {
        const pod = await client.deployOnDemand({ gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, imageName: 'img', cloudType: 'SECURE', ports: '8888/http' });
        expect((await client.pod(pod.id))?.desiredStatus).toBe('RUNNING');
        expect((await client.stop(pod.id)).desiredStatus).toBe('EXITED');
        expect((await client.resume({ podId: pod.id, gpuCount: 1 })).id).toBe(pod.id);
        expect((await client.myPods()).map((p) => p.id)).toContain(pod.id);
        expect(await client.terminate(pod.id)).toBeNull();
        expect(await client.pod(pod.id)).toBeNull();
      } finally {
        await client.close();
      }
    }
    const types = await pods.gpuTypes({ id: 'NVIDIA RTX A4000' }, { gpuCount: 1, secureCloud: true });
    expect(types[0]?.lowestPrice).toMatchObject({ stockStatus: 'High', uninterruptablePrice: 0.32, minimumBidPrice: 0.16 });
  });

  it('PodClient surfaces the no-stock refusal as a GraphQL error', async () => {
    await expect(pods.deployOnDemand({ gpuTypeId: 'NVIDIA B200', gpuCount: 1, imageName: 'img' })).rejects.toMatchObject({ name: expect.stringMatching(/Graphql/i) });
  });
});
