// §4.1/§8 payload caps: the largest body /run (10 MB) and /runsync (20 MB) accept, found to
// the byte by bisection between a small body and twice the cap, then latency against body
// size up to the cap. Verdict: the largest accepted body is the documented cap under one of
// the two readings of "MB" (decimal or binary; see docs/reference/emulator.md). `--param op=run|runsync`,
// `--param expect=advertised` compares with the emulator's advertised cap instead.
// A probe answered by a gateway (502, 503, 504) or a broken connection, after retries, did not
// get the target's own answer (src/target/gateway.ts, as the conformance payload checks): the
// bisection stops there and the cap is not judged (inconclusive), unless a body past the cap
// had already been accepted (a violation whatever the rest).
import {
  RUN_PAYLOAD, RUNSYNC_PAYLOAD, notTheTargetsAnswer, defineScenario, type ByteSize, type Analysis, type LoadTarget,
  type ScenarioInput,
} from 'qbench/suite';
import { valueAt } from './lib/answer.js';
import { precondition, setupNote, statusOf } from './lib/verdict.js';
import { EXPECT_PARAM, RUN_OPERATIONS_PARAM, type Expect } from './lib/limits.js';

type Op = 'run' | 'runsync';
const CAPS: Record<Op, ByteSize> = { run: RUN_PAYLOAD, runsync: RUNSYNC_PAYLOAD };
/** Fractions of the cap at which latency is sampled, and samples per size. */
const SIZE_FRACTIONS = [0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 1] as const;
const SAMPLES_PER_SIZE = 3;
const NETWORK_RETRIES = 3;
const EMPTY_BODY_BYTES = JSON.stringify({ input: { pad: '' } }).length;

interface PayloadState {
  largestAccepted: number;
  smallestRefused: number;
  refusedStatus: number | null;
  probes: number;
  latency: [bytes: number, ms: number][];
  /** The probe of the bisection that got no answer from the target itself, if one did. */
  unseen?: string;
}

function body(bytes: number): string {
  return JSON.stringify({ input: { pad: 'x'.repeat(Math.max(0, bytes - EMPTY_BODY_BYTES)) } });
}

function advertisedCap(target: LoadTarget, op: Op): number | undefined {
  const v = valueAt(target.info, 'limits', 'payload', op === 'run' ? 'runBytes' : 'runsyncBytes');
  return typeof v === 'number' ? v : undefined;
}

export function payloadScenario(op: Op, target: LoadTarget, expect: Expect): ScenarioInput<PayloadState> {
  const doc = CAPS[op];
  const advertised = expect === 'advertised' ? advertisedCap(target, op) : undefined;
  const accepted = advertised !== undefined ? [advertised] : [doc.decimalBytes, doc.binaryBytes];
  const source = advertised !== undefined ? 'emulator /_qbench/info' : `${doc.section} (${doc.megabytes} MB, decimal or binary)`;
  const ceiling = 2 * Math.max(...accepted);
  return {
    name: `payload-cap-${op}`,
    description: `largest /${op} body accepted vs ${source}; latency vs body size`,
    executor: 'iterations',
    globalView: 'its bisection is one sequence of requests, each size chosen from the answer to the one before',
    iterations: 1,
    vus: 1,
    maxDurationMs: 10 * 60_000,
    requestTimeoutMs: 120_000,
    // Building and parsing 20 MB bodies (the emulator may share the process) stalls the event
    // loop and keeps the generator's CPU busy by design; the verdict is a byte count, and one
    // request is in flight at a time.
    validity: { maxEventLoopDelayP99Ms: 10_000, cpuBoundInvalidates: false },
    steps: [
      {
        kind: 'custom',
        name: op,
        fn: async (it) => {
          const st = it.state;
          const send = async (bytes: number) => {
            // A server that refuses a big body early may close the connection under the
            // next request, and a proxy in front of it answer 502: retried, not read as a refusal.
            for (let attempt = 1; ; attempt++) {
              st.probes++;
              const t = performance.now();
              const a = await it.request(op, { method: 'POST', path: `/${op}`, body: body(bytes) });
              if (notTheTargetsAnswer(a.status) && attempt < NETWORK_RETRIES && !it.signal.aborted) continue;
              return { ok: a.status !== null && a.status >= 200 && a.status < 300, status: a.status, ms: performance.now() - t, unseen: notTheTargetsAnswer(a.status) };
            }
          };
          const unseen = (bytes: number, status: number | null) => {
            st.unseen = `${bytes.toLocaleString('en-US')} bytes: ${status === null ? 'the connection broke' : `a gateway answered ${status}`} ${NETWORK_RETRIES} times`;
          };
          // Bisection on [largest accepted, smallest refused].
          let lo = EMPTY_BODY_BYTES;
          let hi = ceiling;
          const top = await send(hi);
          if (top.ok) {
            st.largestAccepted = hi;
            st.smallestRefused = Number.POSITIVE_INFINITY;
            return;
          }
          if (top.unseen) unseen(hi, top.status);
          else st.refusedStatus = top.status;
          while (hi - lo > 1 && !it.signal.aborted) {
            const mid = Math.floor((lo + hi) / 2);
            const r = await send(mid);
            if (r.ok) lo = mid;
            else if (r.unseen) {
              unseen(mid, r.status);
              break;
            } else {
              hi = mid;
              st.refusedStatus = r.status;
            }
          }
          st.largestAccepted = lo;
          st.smallestRefused = hi;
          if (st.unseen !== undefined) return;
          for (const f of SIZE_FRACTIONS) {
            const bytes = Math.max(EMPTY_BODY_BYTES, Math.floor(f * lo));
            for (let i = 0; i < SAMPLES_PER_SIZE && !it.signal.aborted; i++) {
              const r = await send(bytes);
              if (r.ok) st.latency.push([bytes, r.ms]);
            }
          }
        },
      },
    ],
    hooks: {
      setup: () => Promise.resolve<PayloadState>({ largestAccepted: 0, smallestRefused: 0, refusedStatus: null, probes: 0, latency: [] }),
      analyze: (_r, rc): Analysis => {
        const st = rc.state;
        const reading = st.largestAccepted === doc.decimalBytes ? 'decimal (1 MB = 1,000,000 bytes)' : st.largestAccepted === doc.binaryBytes ? 'binary (1 MB = 1,048,576 bytes)' : 'neither reading';
        const findings = [
          precondition('every probe of the bisection got the target\'s own answer', 'an answer from the target (not a gateway 502/503/504, not a broken connection)', st.unseen ?? 'yes', st.unseen === undefined),
          {
            label: `largest /${op} body accepted`,
            clause: doc.section,
            expected: `${accepted.map((b) => b.toLocaleString('en-US')).join(' or ')} bytes (${source})`,
            observed: `${st.largestAccepted.toLocaleString('en-US')} bytes (${reading}); ${Number.isFinite(st.smallestRefused) ? `${st.smallestRefused.toLocaleString('en-US')} refused with ${st.refusedStatus ?? 'no answer'}` : `even ${ceiling.toLocaleString('en-US')} bytes accepted`}`,
            passed: accepted.includes(st.largestAccepted),
          },
        ];
        const bySize = new Map<number, number[]>();
        for (const [b, ms] of st.latency) bySize.set(b, [...(bySize.get(b) ?? []), ms]);
        const points: [number, number][] = [...bySize.entries()].sort((a, b) => a[0] - b[0]).map(([b, list]) => [b / 1e6, list.sort((x, y) => x - y)[Math.floor(list.length / 2)] ?? 0]);
        // A body past the cap the target itself accepted is a violation however the bisection ended.
        const status = statusOf(findings, st.largestAccepted > Math.max(...accepted));
        return {
          status,
          summary: `${setupNote(status, findings)}/${op}: largest accepted body ${st.largestAccepted.toLocaleString('en-US')} bytes after ${st.probes} probes (${reading})`,
          findings,
          charts: [
            {
              id: `payload-${op}-latency`,
              title: `/${op}: median latency vs body size`,
              xLabel: 'body (MB, decimal)',
              yLabel: 'ms',
              xKind: 'linear',
              series: [{ name: 'median latency', points }],
              referenceLines: [],
            },
          ],
        };
      },
    },
  };
}

export default defineScenario({
  params: { op: RUN_OPERATIONS_PARAM, expect: EXPECT_PARAM },
  create: ({ target, params }) => params.op.map((op) => payloadScenario(op, target, params.expect)),
});
