// The work of `qbench kube render` (declared in kube.ts): fix the shared start instant and
// print the manifests.
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { manifestList, renderKube } from '../../deploy/kube.js';
import { resolveStartAt } from '../../load/sharding.js';
import type { CliIo } from '../command.js';
import type { Flags } from '../options.js';
import type { KUBE_OPTIONS } from './kube.js';

export function runKube(f: Flags<typeof KUBE_OPTIONS>, io: CliIo): Promise<ExitCode> {
  const base = f.scenario.replace(/^.*\//, '').replace(/\.[a-z]+$/i, '').toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  const at = resolveStartAt(f.startAt, {});
  const startAt = new Date(at ?? Date.now() + f.startInMs).toISOString();
  const loadArgs: string[] = [];
  if (f.rate !== undefined) loadArgs.push('--rate', String(f.rate));
  if (f.duration !== undefined) loadArgs.push('--duration', f.duration);
  if (f.threads !== undefined) loadArgs.push('--threads', String(f.threads));
  for (const p of f.param) loadArgs.push('--param', p);
  for (const s of f.set) loadArgs.push('--set', s);
  const manifests = renderKube({
    scenario: f.scenario,
    shards: f.shards,
    target: f.target,
    endpointId: f.endpoint,
    name: f.name ?? `qbench-${base}`.slice(0, 40).replace(/-+$/, ''),
    namespace: f.namespace,
    image: f.image,
    secretName: f.secret,
    secretKey: f.secretKey,
    startAt,
    loadArgs,
    storage: f.storage,
    storageClass: f.storageClass,
    cpu: f.cpu,
    mergeWaitSec: Math.ceil(f.mergeWaitMs / 1000),
  });
  io.stdout(manifestList(manifests));
  return Promise.resolve(EXIT.OK);
}
