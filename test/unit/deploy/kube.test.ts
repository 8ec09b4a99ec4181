// `qbench kube render`: the manifests validate against the Kubernetes resource schemas
// (kubernetes-models, generated from the Kubernetes OpenAPI), the shard Job is an Indexed Job
// with parallelism = completions = n, the key is read from a Secret by name and never
// written, and deploy/kubernetes/'s example is what the command prints today.
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';

const SENTINEL_KEY = 'rp_sentinel_key_never_in_a_manifest';

async function render(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), isTty: false, env: { QBENCH_API_KEY: SENTINEL_KEY }, signal: new AbortController().signal };
  const code = await main(['kube', 'render', ...args], io);
  return { code, out: out.join(''), err: err.join('') };
}

type Item = Record<string, unknown> & { kind: string };

/** Validate one manifest with the kubernetes-models class of its kind; throws on a violation. */
function validate(item: Item): void {
  if (item.kind === 'Job') new Job(item as never).validate();
  else if (item.kind === 'PersistentVolumeClaim') new PersistentVolumeClaim(item as never).validate();
  else throw new Error(`unexpected kind ${item.kind}`);
}

const EXAMPLE_ARGS = ['suites/load/mixed-soak.ts', '--shards', '4', '--target', 'https://queue.example.com/v2/my-endpoint', '--param', 'rate=400', '--start-at', '2030-01-01T12:00:00Z', '--cpu', '2', '--storage-class', 'nfs'];

describe('qbench kube render', () => {
  it('prints a results volume, an Indexed Job of n shards and a merge Job, each valid against the Kubernetes schemas', async () => {
    const r = await render(EXAMPLE_ARGS);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out) as { apiVersion: string; kind: string; items: Item[] };
    expect([list.apiVersion, list.kind]).toEqual(['v1', 'List']);
    expect(list.items.map((i) => i.kind)).toEqual(['PersistentVolumeClaim', 'Job', 'Job']);
    for (const item of list.items) validate(item);

    const job = new Job(list.items[1] as never);
    expect(job.spec?.completionMode).toBe('Indexed');
    expect(job.spec?.completions).toBe(4);
    expect(job.spec?.parallelism).toBe(4);
    const pod = job.spec!.template.spec!;
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    const c = pod.containers[0]!;
    expect(c.args).toEqual(['load', 'suites/load/mixed-soak.ts', '--target', 'https://queue.example.com/v2/my-endpoint', '--shards', '4', '--out', '/results/shard-$(JOB_COMPLETION_INDEX)', '--param', 'rate=400']);
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e]));
    expect(env['QBENCH_START_AT']?.value).toBe('2030-01-01T12:00:00.000Z');
    expect(env['QBENCH_API_KEY']?.valueFrom?.secretKeyRef).toEqual({ name: 'qbench-api-key', key: 'api-key' });
    expect(env['JOB_COMPLETION_INDEX']?.valueFrom?.fieldRef?.fieldPath).toBe("metadata.annotations['batch.kubernetes.io/job-completion-index']");
    expect(r.out).not.toContain(SENTINEL_KEY);

    // The example shipped in deploy/kubernetes/ is what the command prints.
    expect(await readFile('deploy/kubernetes/mixed-soak-4-shards.json', 'utf8')).toBe(r.out);
  });

  it('the schema check has teeth: a Job with a malformed field is refused', () => {
    const bad = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'x' }, spec: { completionMode: 'Indexed', completions: 'four', template: { spec: { containers: [{ name: 'a', image: 'b' }] } } } };
    expect(() => validate(bad)).toThrow(/completions must be integer/);
  });

  it('refuses what a cluster cannot run, naming the flag', async () => {
    const emulator = await render(['suites/load/mixed-soak.ts', '--shards', '2', '--target', 'emulator']);
    expect(emulator.code).toBe(2);
    expect(emulator.err).toMatch(/--target must be an http\(s\):\/\/ URL/);
    const noShards = await render(['suites/load/mixed-soak.ts', '--target', 'http://10.0.0.1/v2/ep']);
    expect(noShards.code).toBe(2);
    expect(noShards.err).toMatch(/--shards is required/);
    const badName = await render(['suites/load/mixed-soak.ts', '--shards', '2', '--target', 'http://10.0.0.1/v2/ep', '--name', 'Bad_Name']);
    expect(badName.err).toMatch(/--name must be lower-case letters/);
  });
});
