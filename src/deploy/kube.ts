// The Kubernetes manifests of one sharded load run (`qbench kube render`): a volume for the
// results, an Indexed Job whose pod i runs `qbench load --shards n` (its index from
// JOB_COMPLETION_INDEX) with one shared start instant, and a merge Job that waits for every
// shard's reports and writes the merged result and every report format. The API key comes
// from a Secret by name (secretKeyRef); no key is ever written into a manifest.

/** Where the results volume is mounted in every pod. */
export const RESULTS_DIR = '/results';
/** The file a shard writes last (src/report/write-all.ts): its reports are complete. */
export const SHARD_DONE_FILE = 'summary.txt';

export interface KubeRenderOptions {
  /** Scenario file as the image sees it (relative to its working directory, e.g. suites/load/x.ts). */
  readonly scenario: string;
  readonly shards: number;
  /** http(s)://host[:port][/v2/<endpoint_id>]. */
  readonly target: string;
  readonly endpointId?: string | undefined;
  /** Run name: prefix of every object (DNS-1123 label). */
  readonly name: string;
  readonly namespace?: string | undefined;
  readonly image: string;
  readonly secretName: string;
  readonly secretKey: string;
  /** The shared start instant, ISO-8601. */
  readonly startAt: string;
  /** Extra `qbench load` arguments (--rate, --duration, --threads, --param, --set...). */
  readonly loadArgs: readonly string[];
  readonly storage: string;
  readonly storageClass?: string | undefined;
  /** CPU cores requested (and limited to) per shard pod, e.g. "2". */
  readonly cpu?: string | undefined;
  /** How long the merge Job waits for the shards before merging what is there, s. */
  readonly mergeWaitSec: number;
}

/** The environment variable the shard pods read the key from (qbench load --api-key-env default). */
export const API_KEY_ENV = 'QBENCH_API_KEY';

type Manifest = Record<string, unknown>;

export function renderKube(o: KubeRenderOptions): Manifest[] {
  const labels = { 'app.kubernetes.io/name': 'qbench', 'app.kubernetes.io/instance': o.name };
  const meta = (name: string): Manifest => ({ name, ...(o.namespace !== undefined ? { namespace: o.namespace } : {}), labels });
  const claimName = `${o.name}-results`;
  const volumes = [{ name: 'results', persistentVolumeClaim: { claimName } }];
  const volumeMounts = [{ name: 'results', mountPath: RESULTS_DIR }];
  // The image's user (Dockerfile): files on the volume are written as it.
  const securityContext = { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 };
  const resources = o.cpu !== undefined ? { resources: { requests: { cpu: o.cpu }, limits: { cpu: o.cpu } } } : {};
  const pvc: Manifest = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta(claimName),
    spec: {
      // Every shard pod and the merge pod mount it, possibly on different nodes.
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage: o.storage } },
      ...(o.storageClass !== undefined ? { storageClassName: o.storageClass } : {}),
    },
  };
  const shardArgs = [
    'load',
    o.scenario,
    '--target',
    o.target,
    ...(o.endpointId !== undefined ? ['--endpoint', o.endpointId] : []),
    '--shards',
    String(o.shards),
    // Kubernetes expands $(VAR) from the container's environment.
    '--out',
    `${RESULTS_DIR}/shard-$(JOB_COMPLETION_INDEX)`,
    ...o.loadArgs,
  ];
  const shardJob: Manifest = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(`${o.name}-shards`),
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      // A retried shard would join long after the start: the merge names it missing instead.
      backoffLimit: 0,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          securityContext,
          containers: [
            {
              name: 'shard',
              image: o.image,
              args: shardArgs,
              env: [
                // Declared here (the Job controller then adds no copy of its own) so that the
                // $(JOB_COMPLETION_INDEX) in the arguments expands from the container's env.
                { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
                { name: 'QBENCH_START_AT', value: o.startAt },
                { name: API_KEY_ENV, valueFrom: { secretKeyRef: { name: o.secretName, key: o.secretKey } } },
              ],
              volumeMounts,
              ...resources,
            },
          ],
          volumes,
        },
      },
    },
  };
  const done = `${RESULTS_DIR}/shard-*/${SHARD_DONE_FILE}`;
  const mergeScript = [
    `end=$(( $(date +%s) + ${o.mergeWaitSec} ))`,
    `while [ "$(ls ${done} 2>/dev/null | wc -l)" -lt ${o.shards} ] && [ "$(date +%s)" -lt "$end" ]; do sleep 5; done`,
    `exec qbench merge ${RESULTS_DIR}/shard-*/result.json -o ${RESULTS_DIR}/merged.json --reports ${RESULTS_DIR}/merged`,
  ].join('\n');
  const mergeJob: Manifest = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(`${o.name}-merge`),
    spec: {
      completions: 1,
      parallelism: 1,
      backoffLimit: 0,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          securityContext,
          containers: [{ name: 'merge', image: o.image, command: ['sh', '-c', mergeScript], volumeMounts }],
          volumes,
        },
      },
    },
  };
  return [pvc, shardJob, mergeJob];
}

/** One `kubectl apply -f -` document: a v1 List of the manifests, as JSON (valid YAML too). */
export function manifestList(items: readonly Manifest[]): string {
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2)}\n`;
}
