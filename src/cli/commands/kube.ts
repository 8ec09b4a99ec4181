// `qbench kube render --shards n --target <url> <scenario>`: print the Kubernetes manifests
// of one sharded load run (src/deploy/kube.ts) for `kubectl apply -f -`. The shared start
// instant is fixed when the manifests are rendered (--start-in from now, or --start-at).
import { z } from 'zod';
import { usageError } from '../../errors.js';
import { manifestList, renderKube } from '../../deploy/kube.js';
import { MAX_SHARDS, resolveStartAt } from '../../load/sharding.js';
import { VERSION } from '../../version.js';
import type { CommandModule } from '../command.js';
import { targetOptions } from '../target-options.js';
import { flagList, parseFlags } from '../flags.js';
import { optionalText, parseDurationMs } from './load.js';

const dns1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const Flags = z.strictObject({
  scenario: z.string().min(1),
  shards: z.number({ error: '--shards <n> is required' }).int({ error: '--shards must be a whole number' }).min(1).max(MAX_SHARDS, { error: `--shards: at most ${MAX_SHARDS}` }),
  target: z.string({ error: '--target <url> is required' }).regex(/^https?:\/\//, { error: '--target: an http(s):// URL the pods can reach (an in-process emulator cannot be shared by shards)' }),
  endpointId: z.string().min(1).optional(),
  name: z.string().max(40, { error: '--name: at most 40 characters (object names get suffixes)' }).regex(dns1123, { error: '--name: lower-case letters, digits and "-" (a DNS-1123 label)' }),
  namespace: z.string().regex(dns1123, { error: '--namespace: a DNS-1123 label' }).optional(),
  image: z.string().min(1),
  secret: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { error: '--secret: the name of a Kubernetes Secret' }),
  secretKey: z.string().regex(/^[-._a-zA-Z0-9]+$/, { error: '--secret-key: a key of the Secret' }),
  storage: z.string().regex(/^\d+(\.\d+)?(Ki|Mi|Gi|Ti)?$/, { error: '--storage: a quantity, e.g. 1Gi' }),
  storageClass: z.string().min(1).optional(),
  cpu: z.string().regex(/^\d+(\.\d+)?m?$/, { error: '--cpu: a CPU quantity, e.g. 2 or 500m' }).optional(),
});

export const kubeCommand: CommandModule = {
  command: 'kube <action> <scenario>',
  describe: 'Print the Kubernetes manifests (Indexed Job of shards, merge Job, results volume) of a load run split into shards',
  builder: (y) =>
    targetOptions(
      y
        .positional('action', { type: 'string', choices: ['render'], describe: 'render: print the manifests (kubectl apply -f -)' })
        .positional('scenario', { type: 'string', describe: 'Scenario file as the image sees it, e.g. suites/load/mixed-soak.ts' })
        .option('shards', { type: 'number', describe: 'Number of shard pods (each runs every n-th start of the one schedule)' }),
      { optional: true, urlOnly: true, apiKeyEnv: false, notes: { target: 'the pods load it (an in-process emulator cannot be shared by shards); the key comes from --secret' } },
    )
      .option('name', { type: 'string', describe: 'Run name, prefix of every object (default qbench-<scenario>)' })
      .option('namespace', { type: 'string', describe: 'Namespace of every object' })
      .option('image', { type: 'string', default: `qbench:${VERSION}`, describe: 'The qbench image (deploy/kubernetes/Dockerfile)' })
      .option('secret', { type: 'string', default: 'qbench-api-key', describe: 'Secret holding the API key (read by name; the key never enters a manifest)' })
      .option('secret-key', { type: 'string', default: 'api-key', describe: 'Key of the API key in that Secret' })
      .option('start-in', { type: 'string', default: '2m', describe: 'Shared start this long after rendering (time to schedule pods and pull the image)' })
      .option('start-at', { type: 'string', describe: 'Shared start instant, ISO-8601 (instead of --start-in)' })
      .option('merge-wait', { type: 'string', default: '2h', describe: 'How long the merge Job waits for every shard before merging (then it names the missing)' })
      .option('storage', { type: 'string', default: '1Gi', describe: 'Size of the results volume (ReadWriteMany)' })
      .option('storage-class', { type: 'string', describe: 'StorageClass of the results volume' })
      .option('cpu', { type: 'string', describe: 'CPU cores requested and limited per shard pod, e.g. 2' })
      .option('rate', { type: 'number', describe: 'qbench load --rate (the global rate; each shard runs 1/n of it)' })
      .option('duration', { type: 'string', describe: 'qbench load --duration' })
      .option('threads', { type: 'number', describe: 'qbench load --threads per pod' })
      .option('param', { type: 'string', array: true, describe: 'qbench load --param key=value' })
      .option('set', { type: 'string', array: true, describe: 'qbench load --set path=JSON' })
      .example('$0 kube render suites/load/mixed-soak.ts --shards 4 --target https://api.example/v2/ep --rate 2000 | kubectl apply -f -', 'four shards of one 2,000/s schedule'),
  run: (argv, io) => {
    const scenario = String(argv['scenario']);
    const base = scenario.replace(/^.*\//, '').replace(/\.[a-z]+$/i, '').toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
    const f = parseFlags('kube render', Flags, {
      scenario,
      shards: argv['shards'],
      target: argv['target'],
      endpointId: argv['endpoint'],
      name: argv['name'] ?? `qbench-${base}`.slice(0, 40).replace(/-+$/, ''),
      namespace: argv['namespace'],
      image: argv['image'],
      secret: argv['secret'],
      secretKey: argv['secret-key'],
      storage: argv['storage'],
      storageClass: argv['storage-class'],
      cpu: argv['cpu'],
    });
    let startAt: string;
    const at = resolveStartAt(optionalText(argv['start-at'], '--start-at'), {});
    if (at !== undefined) startAt = new Date(at).toISOString();
    else {
      const inMs = parseDurationMs(String(argv['start-in']));
      if (inMs === undefined) throw usageError(`--start-in "${String(argv['start-in'])}": write e.g. 90s, 2m`);
      startAt = new Date(Date.now() + inMs).toISOString();
    }
    const mergeWaitMs = parseDurationMs(String(argv['merge-wait']));
    if (mergeWaitMs === undefined) throw usageError(`--merge-wait "${String(argv['merge-wait'])}": write e.g. 30m, 2h`);
    const loadArgs: string[] = [];
    for (const flag of ['rate', 'duration', 'threads']) {
      const v = optionalText(argv[flag], `--${flag}`);
      if (v !== undefined) loadArgs.push(`--${flag}`, v);
    }
    for (const p of flagList(argv['param'])) loadArgs.push('--param', p);
    for (const s of flagList(argv['set'])) loadArgs.push('--set', s);
    const manifests = renderKube({
      scenario: f.scenario,
      shards: f.shards,
      target: f.target,
      endpointId: f.endpointId,
      name: f.name,
      namespace: f.namespace,
      image: f.image,
      secretName: f.secret,
      secretKey: f.secretKey,
      startAt,
      loadArgs,
      storage: f.storage,
      storageClass: f.storageClass,
      cpu: f.cpu,
      mergeWaitSec: Math.ceil(mergeWaitMs / 1000),
    });
    io.stdout(manifestList(manifests));
    return Promise.resolve(0);
  },
};
