// `qbench kube render --shards n --target <url> <scenario>`: print the Kubernetes manifests
// of one sharded load run (src/deploy/kube.ts) for `kubectl apply -f -`. The shared start
// instant is fixed when the manifests are rendered (--start-in from now, or --start-at).
import { z } from 'zod';
import { MAX_SHARDS } from '../../load/sharding.js';
import { DurationMs, DurationText } from '../../spec/index.js';
import { VERSION } from '../../version.js';
import { defineCommand, lazyRun } from '../command.js';
import { option, type OptionSet } from '../options.js';
import { optionalTargetOptions } from '../target-options.js';
import { loadOptions } from '../load-options.js';

const dns1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAME = 'must be lower-case letters, digits and "-" (a DNS-1123 label)';
const POD_URL = 'an http(s):// URL the pods can reach';
const KUBE_TARGET = optionalTargetOptions({ urlOnly: true, fromConfig: false, notes: { target: 'the pods load it (an in-process emulator cannot be shared by shards); the key comes from --secret' } });
const SHARDS = `must be a whole number from 1 to ${MAX_SHARDS}`;

export const KUBE_OPTIONS = {
  action: option({ flag: 'action', positional: true, choices: ['render'], schema: z.literal('render'), help: 'render: print the manifests (kubectl apply -f -)' }),
  scenario: option({ flag: 'scenario', positional: true, schema: z.string().min(1), help: 'Scenario file as the image sees it, e.g. suites/load/mixed-soak.ts' }),
  shards: option({ flag: 'shards', kind: 'number', schema: z.number({ error: SHARDS }).int({ error: SHARDS }).min(1, { error: SHARDS }).max(MAX_SHARDS, { error: SHARDS }), help: 'Number of shard pods (each runs every n-th start of the one schedule)' }),
  ...KUBE_TARGET,
  target: { ...KUBE_TARGET.target, schema: z.string({ error: `is required: ${POD_URL}` }).regex(/^https?:\/\//, { error: `must be ${POD_URL} (an in-process emulator cannot be shared by shards)` }) },
  name: option({ flag: 'name', schema: z.string().max(40, { error: 'must be at most 40 characters (object names get suffixes)' }).regex(dns1123, { error: NAME }).optional(), help: 'Run name, prefix of every object', defaultHelp: 'qbench-<scenario>' }),
  namespace: option({ flag: 'namespace', schema: z.string().regex(dns1123, { error: 'must be a DNS-1123 label' }).optional(), help: 'Namespace of every object' }),
  image: option({ flag: 'image', schema: z.string().min(1), default: `qbench:${VERSION}`, help: 'The qbench image (deploy/kubernetes/Dockerfile)' }),
  secret: option({ flag: 'secret', schema: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { error: 'must be the name of a Kubernetes Secret' }), default: 'qbench-api-key', help: 'Secret holding the API key (read by name; the key never enters a manifest)' }),
  secretKey: option({ flag: 'secret-key', schema: z.string().regex(/^[-._a-zA-Z0-9]+$/, { error: 'must be a key of the Secret' }), default: 'api-key', help: 'Key of the API key in that Secret' }),
  startInMs: option({ flag: 'start-in', schema: DurationMs, default: '2m', help: 'Shared start this long after rendering (time to schedule pods and pull the image)' }),
  startAt: option({ flag: 'start-at', schema: z.string().optional(), help: 'Shared start instant, ISO-8601 (instead of --start-in)' }),
  mergeWaitMs: option({ flag: 'merge-wait', schema: DurationMs, default: '2h', help: 'How long the merge Job waits for every shard before merging (then it names the missing)' }),
  storage: option({ flag: 'storage', schema: z.string().regex(/^\d+(\.\d+)?(Ki|Mi|Gi|Ti)?$/, { error: 'must be a quantity, e.g. 1Gi' }), default: '1Gi', help: 'Size of the results volume (ReadWriteMany)' }),
  storageClass: option({ flag: 'storage-class', schema: z.string().min(1).optional(), help: 'StorageClass of the results volume' }),
  cpu: option({ flag: 'cpu', schema: z.string().regex(/^\d+(\.\d+)?m?$/, { error: 'must be a CPU quantity, e.g. 2 or 500m' }).optional(), help: 'CPU cores requested and limited per shard pod, e.g. 2' }),
  // What each shard pod's `qbench load` gets: the load command's own declarations.
  rate: { ...loadOptions.ratePerSec, help: 'qbench load --rate (the global rate; each shard runs 1/n of it)' },
  duration: { ...loadOptions.durationMs, schema: DurationText.optional(), help: 'qbench load --duration' },
  threads: { ...loadOptions.threads, help: 'qbench load --threads per pod' },
  param: { ...loadOptions.param, help: 'qbench load --param key=value' },
  set: { ...loadOptions.set, help: 'qbench load --set path=JSON' },
} satisfies OptionSet;

export const kubeCommand = defineCommand({
  options: KUBE_OPTIONS,
  builder: (y) => y.example('$0 kube render suites/load/mixed-soak.ts --shards 4 --target https://api.example/v2/ep --rate 2000 | kubectl apply -f -', 'four shards of one 2,000/s schedule'),
  run: lazyRun(async () => (await import('./kube-run.js')).runKube),
});
