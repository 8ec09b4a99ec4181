// The answer contract (src/client/answer-contract.ts) over generated answers: a queue answer
// breaks it exactly when its success body leaves the §4.1 shape (a job state outside §3.1 in
// any spelling included), and a GraphQL answer exactly when it leaves out a selected field, adds
// an unselected one or gives a field a type §2.6-2.7 do not; error answers are never judged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerBreach, type ContractRequest } from '../../../src/client/answer-contract.js';
import { JOB_STATES } from '../../../src/spec/index.js';

const SEED = Number(process.env['QBENCH_TEST_SEED'] ?? 2911);
const params = { seed: SEED, numRuns: 200 };

function judge(req: ContractRequest, status: number, body: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  return answerBreach(req, { status, text, json: body });
}

const queue = (method: string, path: string): ContractRequest => ({ iface: 'queue', method, path });

/** A word that is no §3.1 state in the exact spelling: other words and the states in other cases. */
const notAState = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !(JOB_STATES as readonly string[]).includes(s)),
  fc.constantFrom(...JOB_STATES).map((s) => s.toLowerCase()),
  fc.constant('RUNNING'),
);

describe('queue answers', () => {
  it(`a job record passes with any §3.1 state and breaks with any other word (seed ${SEED})`, () => {
    fc.assert(
      fc.property(fc.constantFrom('status', 'runsync'), fc.uuid(), fc.constantFrom(...JOB_STATES), notAState, fc.nat(100_000), (op, id, state, bad, ms) => {
        const req = queue(op === 'runsync' ? 'POST' : 'GET', `/prefix/v2/ep-1/${op}${op === 'runsync' ? '' : `/${id}`}`);
        const record = { id, status: state, delayTime: ms, executionTime: ms, workerId: 'w1', output: { any: ['thing'] } };
        expect(judge(req, 200, record)).toBeNull();
        const breach = judge(req, 200, { ...record, status: bad });
        expect(breach?.section).toBe('§4.1');
        expect(breach?.problems).toContain('status');
      }),
      params,
    );
  });

  it('/run, /retry and /purge-queue answers have their one status word, /cancel a §3.1 state', () => {
    expect(judge(queue('POST', '/v2/e/run'), 200, { id: 'a', status: 'IN_QUEUE' })).toBeNull();
    expect(judge(queue('POST', '/v2/e/run'), 200, { id: 'a', status: 'QUEUED' })?.rule).toMatch(/IN_QUEUE/);
    expect(judge(queue('POST', '/v2/e/cancel/a'), 200, { id: 'a', status: 'CANCELLED' })).toBeNull();
    // What /cancel answers for a job that already ended is not shown: any §3.1 state, in that spelling.
    expect(judge(queue('POST', '/v2/e/cancel/a'), 200, { id: 'a', status: 'COMPLETED' })).toBeNull();
    expect(judge(queue('POST', '/v2/e/cancel/a'), 200, { id: 'a', status: 'cancelled' })).not.toBeNull();
    expect(judge(queue('POST', '/v2/e/retry/a'), 200, { id: 'a', status: 'IN_QUEUE' })).toBeNull();
    expect(judge(queue('POST', '/v2/e/purge-queue'), 200, { removed: 3, status: 'completed' })).toBeNull();
    expect(judge(queue('POST', '/v2/e/purge-queue'), 200, { removed: 3, status: 'COMPLETED' })).not.toBeNull();
  });

  it('/stream passes in both forms and breaks with a state outside §3.1', () => {
    const path = '/v2/e/stream/a';
    expect(judge(queue('GET', path), 200, { status: 'COMPLETED', stream: [{ output: 'x' }] })).toBeNull();
    expect(judge(queue('GET', path), 200, [{ output: { text: ['a'] }, metrics: { pending: 0 } }])).toBeNull();
    expect(judge(queue('GET', path), 200, { status: 'DONE', stream: [] })).not.toBeNull();
    expect(judge(queue('GET', path), 200, { status: 'COMPLETED', stream: [{ output: 'x', metrics: { pending: 'none' } }] })).not.toBeNull();
  });

  it('/health breaks with a count missing or not an integer', () => {
    const ok = { jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: 0 } };
    expect(judge(queue('GET', '/v2/e/health'), 200, ok)).toBeNull();
    expect(judge(queue('GET', '/v2/e/health'), 200, { ...ok, workers: { idle: 1 } })?.section).toBe('§2.4');
    expect(judge(queue('GET', '/v2/e/health'), 200, { ...ok, jobs: { ...ok.jobs, inQueue: 0.5 } })).not.toBeNull();
  });

  it(`never judges an error answer, an empty body, or a route whose shape the spec does not give (seed ${SEED})`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 599 }), fc.constantFrom('run', 'status/x', 'stream/x', 'health', 'cancel/x'), fc.jsonValue(), (status, op, body) => {
        expect(judge(queue('GET', `/v2/e/${op}`), status, body)).toBeNull();
      }),
      params,
    );
    expect(answerBreach(queue('POST', '/v2/e/cancel/x'), { status: 200, text: '', json: undefined })).toBeNull();
    expect(judge(queue('POST', '/v2/e/openai/v1/chat/completions'), 200, { anything: true })).toBeNull();
    expect(judge(queue('GET', '/v2/e/requests'), 200, [1, 2])).toBeNull();
    expect(answerBreach(queue('GET', '/v2/e/status/x'), { status: 200, text: 'not json', json: undefined })?.problems).toMatch(/not JSON/);
  });
});

// --- GraphQL ---

/** Pod leaf fields with a value of their §2.6 type, and one of another type. */
const POD_LEAVES: Readonly<Record<string, readonly [unknown, unknown]>> = {
  id: ['pod-1', 7], name: ['n', false], imageName: ['img:1', 3], machineId: ['m1', 7], desiredStatus: ['RUNNING', 1],
  costPerHr: [0.4, 'cheap'], gpuCount: [1, 1.5], uptimeSeconds: [12, '12'], podType: ['ON_DEMAND', []],
};

const gql = (query: string): ContractRequest => ({ iface: 'graphql', method: 'POST', path: '', json: { query } });

describe('GraphQL answers carry their selection set', () => {
  const leaves = Object.keys(POD_LEAVES);
  const selection = fc.subarray(leaves, { minLength: 2 });

  it(`the exact selection passes; a selected field left out, an extra one, or a wrong type breaks (seed ${SEED})`, () => {
    fc.assert(
      fc.property(selection, fc.nat(), fc.constantFrom('pod', 'podStop', 'podResume'), (fields, pick, op) => {
        const query = `${op === 'pod' ? 'query' : 'mutation'} { ${op}(input: { podId: "p" }) { ${fields.join(' ')} machine { podHostId } } }`;
        const pod: Record<string, unknown> = Object.fromEntries(fields.map((f) => [f, POD_LEAVES[f]![0]]));
        pod['machine'] = { podHostId: 'h' };
        expect(judge(gql(query), 200, { data: { [op]: pod } })).toBeNull();
        const victim = fields[pick % fields.length]!;
        const { [victim]: _gone, ...without } = pod;
        expect(judge(gql(query), 200, { data: { [op]: without } })?.problems).toContain(`data.${op}.${victim} was selected but is missing`);
        expect(judge(gql(query), 200, { data: { [op]: { ...pod, machine: {} } } })?.problems).toContain(`data.${op}.machine.podHostId was selected but is missing`);
        const unselected = leaves.find((l) => !fields.includes(l));
        if (unselected !== undefined) expect(judge(gql(query), 200, { data: { [op]: { ...pod, [unselected]: POD_LEAVES[unselected]![0] } } })?.problems).toContain('was not selected');
        expect(judge(gql(query), 200, { data: { [op]: { ...pod, [victim]: POD_LEAVES[victim]![1] } } })?.problems).toContain(`data.${op}.${victim}`);
      }),
      params,
    );
  });

  it('top-level keys under data are exactly the selected operations (aliases by their alias)', () => {
    const q = gql('query { a: gpuTypes { id } myself { pods { id } } }');
    expect(judge(q, 200, { data: { a: [{ id: 'g' }], myself: { pods: [{ id: 'p' }] } } })).toBeNull();
    expect(judge(q, 200, { data: { a: [{ id: 'g' }] } })?.problems).toContain('data.myself was selected but is missing');
    expect(judge(q, 200, { data: { a: [{ id: 'g' }], myself: { pods: [] }, extra: 1 } })?.problems).toContain('data.extra is in the answer but was not selected');
    expect(judge(q, 200, { data: { a: [{ id: 'g' }, {}], myself: { pods: [] } } })?.problems).toContain('data.a[1].id was selected but is missing');
  });

  it('selections of one response key merge (GraphQL CollectFields), fragments and variables included', () => {
    const q = gql('query { pod(input: {podId: "x"}) { runtime { uptimeInSeconds } runtime { gpus { id } } ...R } } fragment R on Pod { runtime { ports { ip } } }');
    const runtime = { uptimeInSeconds: 3, gpus: [{ id: 'g' }], ports: [{ ip: '1.2.3.4' }] };
    expect(judge(q, 200, { data: { pod: { runtime } } })).toBeNull();
    const { gpus: _gpus, ...noGpus } = runtime;
    expect(judge(q, 200, { data: { pod: { runtime: noGpus } } })?.problems).toContain('data.pod.runtime.gpus was selected but is missing');
    const withVar = (include: boolean): ContractRequest => ({ iface: 'graphql', method: 'POST', path: '', json: { query: 'query Q($i: Boolean!) { gpuTypes { id displayName @include(if: $i) } }', variables: { i: include } } });
    expect(judge(withVar(true), 200, { data: { gpuTypes: [{ id: 'g' }] } })?.problems).toContain('displayName was selected but is missing');
    expect(judge(withVar(false), 200, { data: { gpuTypes: [{ id: 'g' }] } })).toBeNull();
    expect(judge(withVar(false), 200, { data: { gpuTypes: [{ id: 'g', displayName: 'd' }] } })?.problems).toContain('was not selected');
  });

  it('GPU type fields carry the §2.7 types, stockStatus one of its four words', () => {
    const q = gql('query { gpuTypes { id memoryInGb lowestPrice(input: { gpuCount: 1 }) { stockStatus minimumBidPrice } } }');
    expect(judge(q, 200, { data: { gpuTypes: [{ id: 'g', memoryInGb: 80, lowestPrice: { stockStatus: 'High', minimumBidPrice: null } }] } })).toBeNull();
    expect(judge(q, 200, { data: { gpuTypes: [{ id: 'g', memoryInGb: 80, lowestPrice: { stockStatus: 'Plenty', minimumBidPrice: 1 } }] } })?.problems).toContain('stockStatus');
    expect(judge(q, 200, { data: { gpuTypes: [{ id: 'g', memoryInGb: '80', lowestPrice: null }] } })?.problems).toContain('memoryInGb');
  });

  it('errors: a null field, a null data and an unparseable query are allowed; fragments and @skip make fields optional', () => {
    expect(judge(gql('mutation { podStop(input: { podId: "x" }) { id desiredStatus } }'), 200, { errors: [{ message: 'no pod' }], data: { podStop: null } })).toBeNull();
    expect(judge(gql('query { pod(input: { podId: "x" }) { id name } }'), 200, { errors: [{ message: 'partial' }], data: { pod: { id: 'x', name: null } } })).toBeNull();
    // §2.6 gives no nullability: a field may be null (GraphQL's default), but the id a pod is known by.
    expect(judge(gql('query { pod(input: { podId: "x" }) { id name } }'), 200, { data: { pod: { id: 'x', name: null } } })).toBeNull();
    expect(judge(gql('query { pod(input: { podId: "x" }) { id name } }'), 200, { data: { pod: { id: null, name: 'n' } } })?.problems).toContain('data.pod.id is null');
    expect(judge(gql('query {'), 200, { errors: [{ message: 'Syntax Error' }] })).toBeNull();
    const frag = gql('query { pod(input: {podId: "x"}) { id name @skip(if: true) ...F ... on GpuType { displayName } } } fragment F on Pod { imageName }');
    expect(judge(frag, 200, { data: { pod: { id: 'x', imageName: 'i' } } })).toBeNull();
    expect(judge(frag, 200, { data: { pod: { id: 'x' } } })?.problems).toContain('data.pod.imageName was selected but is missing');
    expect(judge(frag, 200, { data: { pod: { id: 'x', imageName: 'i', name: 'n' } } })?.problems).toContain('data.pod.name is in the answer but was not selected');
    expect(judge(frag, 200, { data: { pod: { id: 'x', imageName: 'i', displayName: 'd' } } })?.problems).toContain('data.pod.displayName is in the answer but was not selected');
    expect(judge(gql('query { gpuTypes { id } }'), 200, { data: { gpuTypes: [] }, errors: 'bad' })?.section).toBe('§4.3');
    expect(judge(gql('query { gpuTypes { id } }'), 401, { error: 'no key' })).toBeNull();
  });
});
