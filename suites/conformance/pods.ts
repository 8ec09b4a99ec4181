// §2.6 / §2.7 / §3.2 / §4.3 GraphQL pods: every mutation and query, field types, stop and
// resume transitions (same id), the GPU released by podStop, spot bid rules, the no-stock
// error shape (WIRE-COMPAT), §5 api_key auth and 401. Pods cost money on a real target: the
// pod checks are `billable` and each terminates (or stops) what it created.
import { z } from 'zod';
import {
  fail, skip, GpuTypeRecord, HTTP_STATUS, NO_INSTANCES_MESSAGE, PodRecord, type CheckContext, type CheckDefinition,
  type ProbeResponse,
} from 'qbench/suite';
import { describe, expectShape, expectStatus, field, send } from './lib/http.js';

interface GqlAnswer {
  readonly res: ProbeResponse;
  readonly data: Record<string, unknown> | null;
  readonly errors: readonly { message: string; path?: (string | number)[] | undefined }[];
}

const Answer = z.looseObject({
  data: z.record(z.string(), z.unknown()).nullable().optional(),
  errors: z.array(z.looseObject({ message: z.string(), path: z.array(z.union([z.string(), z.number()])).optional() })).optional(),
});

async function gql(ctx: CheckContext, query: string, variables?: Record<string, unknown>, auth?: 'none' | 'wrong'): Promise<GqlAnswer> {
  const res = await send(ctx, { iface: 'graphql', method: 'POST', path: '', json: { query, ...(variables ? { variables } : {}) }, ...(auth ? { auth } : {}) });
  if (auth) return { res, data: null, errors: [] };
  expectStatus(res, HTTP_STATUS.ok, 'POST {graphql_url}');
  const a = expectShape(res, Answer, 'a GraphQL answer {data, errors?}');
  return { res, data: a.data ?? null, errors: a.errors ?? [] };
}

/** The operation's result; fails the check on GraphQL errors. */
async function op(ctx: CheckContext, name: string, query: string, variables?: Record<string, unknown>): Promise<{ value: unknown; res: ProbeResponse }> {
  const a = await gql(ctx, query, variables);
  if (a.errors.length > 0) fail(`${name} without errors`, a.errors.map((e) => e.message).join('; '), a.res);
  if (a.data === null || !Object.hasOwn(a.data, name)) fail(`the result under data.${name} (§4.3)`, describe(a.res), a.res);
  return { value: a.data[name], res: a.res };
}

const GPU_FIELDS = 'id displayName memoryInGb secureCloud communityCloud lowestPrice(input: {gpuCount: 1}) { minimumBidPrice uninterruptablePrice stockStatus availableGpuCounts }';
const POD_FIELDS = 'id name imageName env machineId machine { podHostId } desiredStatus runtime { uptimeInSeconds ports { ip isIpPublic privatePort publicPort type } gpus { id gpuUtilPercent memoryUtilPercent } container { cpuPercent memoryPercent } }';

async function gpuTypesAnswer(ctx: CheckContext): Promise<{ types: GpuTypeRecord[]; res: ProbeResponse }> {
  const { value, res } = await op(ctx, 'gpuTypes', `query { gpuTypes { ${GPU_FIELDS} } }`);
  const list = z.array(GpuTypeRecord).safeParse(value);
  if (!list.success) fail('gpuTypes: a list of GPU types per §2.7', `${z.prettifyError(list.error).replace(/\n/g, '; ')}`, res);
  return { types: list.data, res };
}

async function gpuTypes(ctx: CheckContext): Promise<GpuTypeRecord[]> {
  return (await gpuTypesAnswer(ctx)).types;
}

function maxAvailable(t: GpuTypeRecord): number {
  return Math.max(0, ...(t.lowestPrice?.availableGpuCounts ?? []));
}

/** The GPU type with the most free GPUs (most room for the lifecycle checks). */
async function roomiestType(ctx: CheckContext): Promise<GpuTypeRecord> {
  const types = (await gpuTypes(ctx)).filter((t) => maxAvailable(t) > 0);
  const best = types.sort((a, b) => maxAvailable(b) - maxAvailable(a))[0];
  return best ?? skip('no GPU type has stock now');
}

const DEPLOY = (name: string, gpuTypeId: string, gpuCount: number, extra = '') =>
  `mutation { podFindAndDeployOnDemand(input: { cloudType: ALL, gpuCount: ${gpuCount}, volumeInGb: 10, containerDiskInGb: 10, minVcpuCount: 1, minMemoryInGb: 1, gpuTypeId: ${JSON.stringify(gpuTypeId)}, name: ${JSON.stringify(name)}, imageName: "qbench/pod:1", dockerArgs: "", ports: "8888/http,22/tcp", volumeMountPath: "/workspace", env: [{ key: "QBENCH", value: "yes" }]${extra} }) { id imageName env machineId machine { podHostId } desiredStatus } }`;

async function cleanupPods(ctx: CheckContext, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const t = await ctx.http.send({ iface: 'graphql', method: 'POST', path: '', json: { query: `mutation { podTerminate(input: { podId: ${JSON.stringify(id)} }) }` } }).catch(() => undefined);
    if (t === undefined || t.status !== HTTP_STATUS.ok || field(t.json, 'errors') !== undefined) {
      await ctx.http.send({ iface: 'graphql', method: 'POST', path: '', json: { query: `mutation { podStop(input: { podId: ${JSON.stringify(id)} }) { id } }` } }).catch(() => undefined);
    }
  }
}

async function withPods<T>(ctx: CheckContext, fn: (made: string[]) => Promise<T>): Promise<T> {
  const made: string[] = [];
  try {
    return await fn(made);
  } finally {
    await cleanupPods(ctx, made);
  }
}

function podOf(value: unknown, res: ProbeResponse, what: string): PodRecord {
  const r = PodRecord.safeParse(value);
  if (!r.success) fail(`${what}: a pod record per §2.6`, `${z.prettifyError(r.error).replace(/\n/g, '; ')} in ${describe(res)}`, res);
  return r.data;
}

export const podChecks: CheckDefinition[] = [
  {
    id: 'graphql.auth.missing-or-wrong-key-401',
    title: 'GraphQL answers 401 without api_key and with a wrong one',
    clauses: ['5/401', '5/graphql-auth', '7/401'],
    interface: 'graphql', kind: 'spec', tags: [],
    async run(ctx) {
      for (const auth of ['none', 'wrong'] as const) {
        const a = await gql(ctx, 'query { gpuTypes { id } }', undefined, auth);
        expectStatus(a.res, HTTP_STATUS.unauthorized, `POST {graphql_url} with ${auth === 'none' ? 'no' : 'a wrong'} api_key`);
      }
      return undefined;
    },
  },
  {
    id: 'graphql.gpu-types',
    title: 'gpuTypes answers a list of GPU types with typed fields; input {id} narrows it to that type',
    clauses: ['4.3/gpu-types', '2.7/gpu-type-fields', '4.3/graphql-envelope', '5/graphql-auth', '9/versions'],
    interface: 'graphql', kind: 'spec', tags: [],
    async run(ctx) {
      const { types, res: all } = await gpuTypesAnswer(ctx);
      if (types.length === 0) fail('at least one GPU type', 'an empty list', all);
      const first = types[0] as GpuTypeRecord;
      const { value, res } = await op(ctx, 'gpuTypes', `query { gpuTypes(input: { id: ${JSON.stringify(first.id)} }) { ${GPU_FIELDS} } }`);
      const one = z.array(GpuTypeRecord).safeParse(value);
      if (!one.success || one.data.length !== 1 || one.data[0]?.id !== first.id) fail(`gpuTypes(input: {id: ${first.id}}) answers exactly that type`, describe(res), res);
      ctx.measure('gpuTypes', types.length);
      return { observed: `${types.length} GPU types` };
    },
  },
  {
    id: 'graphql.pod.lifecycle',
    title: 'podFindAndDeployOnDemand, pod, myself.pods, podStop -> EXITED, podResume -> RUNNING with the same id',
    clauses: ['4.3/pod-deploy', '4.3/pod-queries', '4.3/pod-stop', '4.3/pod-resume', '3.2/pod-stop', '3.2/pod-resume', '2.6/pod-fields', '4.3/graphql-envelope'],
    interface: 'graphql', kind: 'spec', tags: ['billable'],
    async run(ctx) {
      return withPods(ctx, async (made) => {
        const type = await roomiestType(ctx);
        const d = await op(ctx, 'podFindAndDeployOnDemand', DEPLOY('qbench-lifecycle', type.id, 1));
        const pod = podOf(d.value, d.res, 'podFindAndDeployOnDemand');
        made.push(pod.id);
        if (pod.imageName !== 'qbench/pod:1') fail('imageName echoed', describe(d.res), d.res);
        if (!(pod.env ?? []).includes('QBENCH=yes')) fail('env as KEY=value strings, including QBENCH=yes', JSON.stringify(pod.env), d.res);
        if (typeof pod.machineId !== 'string' || typeof pod.machine?.podHostId !== 'string') fail('machineId and machine.podHostId strings', describe(d.res), d.res);
        const q = await op(ctx, 'pod', `query { pod(input: { podId: ${JSON.stringify(pod.id)} }) { ${POD_FIELDS} } }`);
        const got = podOf(q.value, q.res, 'pod(input: {podId})');
        if (got.id !== pod.id) fail(`pod ${pod.id}`, describe(q.res), q.res);
        const me = await op(ctx, 'myself', `query { myself { pods { ${POD_FIELDS} } } }`);
        const pods = z.array(PodRecord).safeParse(field(me.value, 'pods'));
        if (!pods.success || !pods.data.some((p) => p.id === pod.id)) fail(`myself.pods lists ${pod.id} with §2.6 fields`, describe(me.res), me.res);
        const s = await op(ctx, 'podStop', `mutation { podStop(input: { podId: ${JSON.stringify(pod.id)} }) { id desiredStatus } }`);
        const stopped = podOf(s.value, s.res, 'podStop');
        if (stopped.id !== pod.id || stopped.desiredStatus !== 'EXITED') fail('podStop answers {id, desiredStatus: EXITED}', describe(s.res), s.res);
        const r = await op(ctx, 'podResume', `mutation { podResume(input: { podId: ${JSON.stringify(pod.id)}, gpuCount: 1 }) { id desiredStatus imageName } }`);
        const resumed = podOf(r.value, r.res, 'podResume');
        if (resumed.id !== pod.id) fail(`podResume answers the same id ${pod.id}`, `id ${resumed.id}`, r.res);
        if (resumed.desiredStatus !== 'RUNNING') fail('podResume answers desiredStatus RUNNING', describe(r.res), r.res);
        return { observed: `pod ${pod.id} on ${type.id}` };
      });
    },
  },
  {
    id: 'graphql.pod.spot',
    title: 'podRentInterruptable at the minimum bid; a bid under it refused; podStop then podBidResume -> RUNNING with the same id',
    clauses: ['4.3/pod-rent-interruptable', '4.3/pod-resume', '3.2/pod-resume', '2.7/gpu-type-fields'],
    interface: 'graphql', kind: 'spec', tags: ['billable'],
    async run(ctx) {
      return withPods(ctx, async (made) => {
        const type = await roomiestType(ctx);
        const min = type.lowestPrice?.minimumBidPrice;
        if (typeof min !== 'number' || min <= 0) skip(`${type.id} has no minimumBidPrice (no spot offer)`);
        const low = await gql(ctx, DEPLOY('qbench-spot-low', type.id, 1, `, bidPerGpu: ${(min / 2).toFixed(4)}`).replace('podFindAndDeployOnDemand', 'podRentInterruptable'));
        const lowPod = field(low.data?.['podRentInterruptable'], 'id');
        if (typeof lowPod === 'string') made.push(lowPod);
        if (low.errors.length === 0) fail(`a bid of ${min / 2} under the minimum bid price ${min} refused`, describe(low.res), low.res);
        const ok = await op(ctx, 'podRentInterruptable', DEPLOY('qbench-spot', type.id, 1, `, bidPerGpu: ${min}`).replace('podFindAndDeployOnDemand', 'podRentInterruptable'));
        const pod = podOf(ok.value, ok.res, 'podRentInterruptable');
        made.push(pod.id);
        const s = await op(ctx, 'podStop', `mutation { podStop(input: { podId: ${JSON.stringify(pod.id)} }) { id desiredStatus } }`);
        if (podOf(s.value, s.res, 'podStop').desiredStatus !== 'EXITED') fail('podStop -> EXITED', describe(s.res), s.res);
        const r = await op(ctx, 'podBidResume', `mutation { podBidResume(input: { podId: ${JSON.stringify(pod.id)}, bidPerGpu: ${min}, gpuCount: 1 }) { id desiredStatus imageName } }`);
        const resumed = podOf(r.value, r.res, 'podBidResume');
        if (resumed.id !== pod.id || resumed.desiredStatus !== 'RUNNING') fail(`podBidResume answers {id: ${pod.id}, desiredStatus: RUNNING}`, describe(r.res), r.res);
        return { observed: `minimum bid ${min} accepted, ${min / 2} refused: ${low.errors[0]?.message ?? ''}` };
      });
    },
  },
  {
    id: 'graphql.pod.stop-releases-gpu',
    title: 'podStop releases the GPU: after exhausting a GPU type, stopping one pod lets the same deploy succeed again',
    clauses: ['3.2/pod-stop', '4.3/pod-stop'],
    interface: 'graphql', kind: 'spec', tags: ['billable', 'destructive'],
    async run(ctx) {
      return withPods(ctx, async (made) => {
        // The type with the fewest free GPUs: the cheapest to exhaust.
        const types = (await gpuTypes(ctx)).filter((t) => maxAvailable(t) > 0).sort((a, b) => maxAvailable(a) - maxAvailable(b));
        const type = types[0] ?? skip('no GPU type has stock now');
        const count = maxAvailable(type);
        const MAX_DEPLOYS = 16;
        let refusal: GqlAnswer | undefined;
        for (let i = 0; i < MAX_DEPLOYS && refusal === undefined; i++) {
          const a = await gql(ctx, DEPLOY(`qbench-exhaust-${i}`, type.id, count));
          const id = field(a.data?.['podFindAndDeployOnDemand'], 'id');
          if (typeof id === 'string') made.push(id);
          else if (a.errors.length > 0) refusal = a;
        }
        if (refusal === undefined || made.length === 0) skip(`could not exhaust ${type.id} in ${MAX_DEPLOYS} deploys of ${count} GPUs`);
        const victim = made[0] as string;
        const s = await op(ctx, 'podStop', `mutation { podStop(input: { podId: ${JSON.stringify(victim)} }) { id desiredStatus } }`);
        if (podOf(s.value, s.res, 'podStop').desiredStatus !== 'EXITED') fail('podStop -> EXITED', describe(s.res), s.res);
        const again = await gql(ctx, DEPLOY('qbench-exhaust-again', type.id, count));
        const id = field(again.data?.['podFindAndDeployOnDemand'], 'id');
        if (typeof id === 'string') made.push(id);
        else fail(`a deploy of ${count} × ${type.id} succeeds once podStop released ${count} GPUs`, describe(again.res), [refusal.res, s.res, again.res]);
        return { observed: `${made.length - 1} pods exhausted ${type.id}; after podStop the deploy succeeded` };
      });
    },
  },
  {
    id: 'graphql.no-stock-error',
    title: 'A deploy with no stock answers HTTP 200 with errors[{message, path}] and data.podFindAndDeployOnDemand null',
    clauses: ['compat/graphql-errors'],
    interface: 'graphql', kind: 'compat', tags: ['billable'],
    async run(ctx) {
      const types = await gpuTypes(ctx);
      const none = types.find((t) => t.lowestPrice?.stockStatus === 'None' || maxAvailable(t) === 0);
      if (none === undefined) skip('every GPU type has stock now');
      const a = await gql(ctx, DEPLOY('qbench-nostock', none.id, 1));
      const id = field(a.data?.['podFindAndDeployOnDemand'], 'id');
      if (typeof id === 'string') {
        await cleanupPods(ctx, [id]);
        fail(`a refusal: ${none.id} has no stock`, describe(a.res), a.res);
      }
      const e = a.errors[0];
      if (e === undefined) fail('an errors list', describe(a.res), a.res);
      if (JSON.stringify(e.path) !== JSON.stringify(['podFindAndDeployOnDemand'])) fail('errors[0].path ["podFindAndDeployOnDemand"]', describe(a.res), a.res);
      if (a.data?.['podFindAndDeployOnDemand'] !== null) fail('data.podFindAndDeployOnDemand null', describe(a.res), a.res);
      ctx.measure('message', e.message);
      ctx.measure('documentedMessage', e.message === NO_INSTANCES_MESSAGE);
      return { observed: e.message };
    },
  },
  {
    id: 'graphql.variables',
    title: 'The same query works with literal arguments and with variables',
    clauses: ['compat/graphql-variables'],
    interface: 'graphql', kind: 'compat', tags: [],
    async run(ctx) {
      const types = await gpuTypes(ctx);
      const id = types[0]?.id ?? skip('no GPU types');
      const { value, res } = await op(ctx, 'gpuTypes', 'query Q($input: GpuTypeFilter) { gpuTypes(input: $input) { id } }', { input: { id } });
      if (!Array.isArray(value) || field(value[0], 'id') !== id) fail(`gpuTypes via variables answers ${id}`, describe(res), res);
      return undefined;
    },
  },
];
