// Property test of the pod store and stock (§3.2, §2.7): whatever sequence of deploys, spot
// rents, stops, resumes and terminates runs, no machine ever gives out more GPUs than it has,
// exactly the RUNNING pods hold GPUs, pods keep their id and machine, and spot pods are only
// ever interrupted by an on-demand request.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { DEFAULT_CATALOGUE, Stock } from '../../../src/emulator/graphql/index.js';
import { PodStore, type DeploySpec } from '../../../src/emulator/graphql/pod-store.js';

const TYPES = ['NVIDIA RTX A4000', 'NVIDIA GeForce RTX 4090', 'NVIDIA H100 PCIe'] as const;

type Cmd =
  | { op: 'deploy'; type: number; gpus: number; cloud: 'ALL' | 'SECURE' | 'COMMUNITY' }
  | { op: 'spot'; type: number; gpus: number; bid: number }
  | { op: 'stop' | 'terminate'; pod: number }
  | { op: 'resume'; pod: number; gpus: number | undefined }
  | { op: 'bidResume'; pod: number; bid: number };

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({ op: fc.constant('deploy' as const), type: fc.nat(TYPES.length - 1), gpus: fc.integer({ min: 1, max: 8 }), cloud: fc.constantFrom('ALL' as const, 'SECURE' as const, 'COMMUNITY' as const) }),
  fc.record({ op: fc.constant('spot' as const), type: fc.nat(TYPES.length - 1), gpus: fc.integer({ min: 1, max: 8 }), bid: fc.double({ min: 0.01, max: 3, noNaN: true }) }),
  fc.record({ op: fc.constantFrom('stop' as const, 'terminate' as const), pod: fc.nat(30) }),
  fc.record({ op: fc.constant('resume' as const), pod: fc.nat(30), gpus: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }) }),
  fc.record({ op: fc.constant('bidResume' as const), pod: fc.nat(30), bid: fc.double({ min: 0.01, max: 3, noNaN: true }) }),
);

const spec = (gpuTypeId: string, gpuCount: number, cloud: DeploySpec['cloud']): DeploySpec => ({
  name: 'p', imageName: 'i', env: [], dockerArgs: '', ports: '', volumeInGb: 1, containerDiskInGb: 1, volumeMountPath: '/w', gpuTypeId, gpuCount, cloud, templateId: null,
});

describe('pod store and stock invariants', () => {
  it('hold for any sequence of operations', () => {
    fc.assert(
      fc.property(fc.array(cmd, { maxLength: 60 }), (cmds) => {
        const clock = new ManualClock(0);
        const stock = new Stock(DEFAULT_CATALOGUE);
        const store = new PodStore(stock, clock, new Set());
        const ids: string[] = [];
        const machineOf = new Map<string, string>();
        for (const c of cmds) {
          clock.advance(1_000);
          const runningBefore = new Set(store.list().filter((p) => p.desiredStatus === 'RUNNING').map((p) => p.id));
          let onDemandSucceeded = false;
          switch (c.op) {
            case 'deploy':
            case 'spot': {
              const typeId = TYPES[c.type]!;
              const out = c.op === 'deploy'
                ? store.deploy(spec(typeId, c.gpus, c.cloud), stock.gpuType(typeId)!, 'on-demand', null)
                : store.deploy(spec(typeId, c.gpus, 'ALL'), stock.gpuType(typeId)!, 'spot', c.bid);
              if (out.kind === 'ok') {
                ids.push(out.pod.id);
                machineOf.set(out.pod.id, out.pod.machine.id);
                onDemandSucceeded = c.op === 'deploy';
              }
              break;
            }
            case 'stop':
              store.stop(ids[c.pod] ?? 'none');
              break;
            case 'terminate':
              store.terminate(ids[c.pod] ?? 'none');
              break;
            case 'resume':
              onDemandSucceeded = store.resume(ids[c.pod] ?? 'none', { gpuCount: c.gpus, kind: 'on-demand' }).kind === 'ok';
              break;
            case 'bidResume':
              store.resume(ids[c.pod] ?? 'none', { kind: 'spot', bidPerGpuHr: c.bid });
              break;
          }
          // GPUs: rented by others + held by running pods + free = the machine's size, never negative.
          for (const m of DEFAULT_CATALOGUE.machines) {
            const held = store.list().filter((p) => p.machine.id === m.id && p.desiredStatus === 'RUNNING').reduce((s, p) => s + p.gpuCount, 0);
            expect(stock.free(m)).toBeGreaterThanOrEqual(0);
            expect(m.rentedByOthers + held + stock.free(m)).toBe(m.gpuCount);
          }
          for (const p of store.list()) {
            expect(stock.holds(p.id)).toBe(p.desiredStatus === 'RUNNING');
            expect(p.machine.id).toBe(machineOf.get(p.id));
            expect(p.startedAtMs === null).toBe(p.desiredStatus === 'EXITED');
          }
          // A pod that was running and is now EXITED without a stop/terminate of it was interrupted: only on-demand demand does that.
          const touched = c.op === 'stop' || c.op === 'terminate' ? ids[c.pod] : undefined;
          for (const p of store.list()) {
            if (runningBefore.has(p.id) && p.desiredStatus === 'EXITED' && p.id !== touched) {
              expect(onDemandSucceeded).toBe(true);
              expect(p.kind).toBe('spot');
            }
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
