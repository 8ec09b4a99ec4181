// A ground-truth deployment served in-process: the emulator's own core (the code `qbench emulate`
// serves over HTTP) on a VirtualClock, reached through the calibration's DeploymentPort with only
// the public queue operations (run, runsync, status, stream, cancel, health; no /_qbench), each
// answered after a round trip of virtual time. The calibration's own clock is the same virtual
// clock divided by the time scale, so `runCalibration` runs unchanged (its real-ms polls, waits
// and deadline) while nothing sleeps: time jumps to the next timer once every promise has settled.
// A calibration of an hour of emulated time takes a second or two of CPU.
import type { DeploymentPort, RealClock } from '../../../src/calibrate/target.js';
import { VirtualClock } from '../../../src/emulator/clock.js';
import type { EmulatorConfig } from '../../../src/emulator/config.js';
import { EmulatorCore } from '../../../src/emulator/core.js';
import type { QueueEndpoint } from '../../../src/emulator/queue/index.js';
import { isTerminal, RUNSYNC_WAIT_MS, type HealthRecord, type JobRecord } from '../../../src/spec/index.js';

export interface VirtualDeployment {
  readonly port: DeploymentPort;
  /** The calibration's clock: real ms = virtual emulated ms / time scale. */
  readonly clock: RealClock;
  /** Run `work` to its end, moving virtual time whenever it waits on a timer only. */
  drive<T>(work: () => Promise<T>): Promise<T>;
  /** Jobs the endpoint accepted (what the budget is checked against). */
  submitted(): number;
  /** Emulated ms since the start. */
  elapsedMs(): number;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `config`'s endpoint `endpointId` at `timeScale` (emulated ms per real ms of the calibration's
 * clock), every operation answered `rttRealMs` real ms after it was asked (half on the way in,
 * half on the way out).
 */
export function virtualDeployment(config: EmulatorConfig, endpointId: string, timeScale: number, rttRealMs = 1): VirtualDeployment {
  const vclock = new VirtualClock(0);
  const errors: string[] = [];
  const core = new EmulatorCore(config, vclock, { subServices: [], log: (line) => errors.push(line) });
  const ep = core.endpoints.get(endpointId) as QueueEndpoint;
  if (ep === undefined) throw new Error(`no endpoint ${endpointId} in the ground truth's config`);
  const halfMs = (rttRealMs / 2) * timeScale;
  const hop = () => vclock.sleep(halfMs);
  const op = async <T>(f: () => T | Promise<T>): Promise<T> => {
    await hop();
    const r = await f();
    await hop();
    return r;
  };
  const recordOf = (id: string): JobRecord => {
    const job = ep.get(id);
    if (job === undefined) throw new Error(`job ${id} not found`);
    return ep.record(job) as unknown as JobRecord;
  };
  const port: DeploymentPort = {
    runSync: (body, waitMs) =>
      op(async () => {
        const job = ep.submit('runsync', { input: body.input, waitMs });
        await ep.waitUntil(job, Math.min(RUNSYNC_WAIT_MS.max, waitMs), () => isTerminal(job.status));
        return ep.record(job) as unknown as JobRecord;
      }),
    run: (body) => op(() => ({ id: ep.submit('run', { input: body.input }).id })),
    status: (id) => op(() => recordOf(id)),
    stream: async function* (id, pollIntervalMs, signal) {
      for (;;) {
        const take = await op(() => {
          const job = ep.get(id);
          if (job === undefined) throw new Error(`job ${id} not found`);
          return ep.takeStream(job);
        });
        for (const c of take.stream) yield c;
        if (take.stream.length === 0) {
          if (isTerminal(take.status as JobRecord['status'])) return;
          try {
            await vclock.sleep(pollIntervalMs * timeScale, signal);
          } catch {
            return;
          }
        }
      }
    },
    cancel: (id) =>
      op(() => {
        ep.cancel(id);
      }),
    health: () => op(() => ep.health() as unknown as HealthRecord),
  };
  const clock: RealClock = {
    now: () => vclock.now() / timeScale,
    sleep: (ms, signal) =>
      vclock.sleep(Math.max(0, ms) * timeScale, signal).then(
        () => true,
        () => false,
      ),
  };
  return {
    port,
    clock,
    submitted: () => ep.counters.submitted,
    elapsedMs: () => vclock.now(),
    async drive<T>(work: () => Promise<T>): Promise<T> {
      let settled = false;
      const p = work();
      p.then(
        () => (settled = true),
        () => (settled = true),
      );
      for (;;) {
        await turn();
        if (settled) break;
        if (!vclock.step()) {
          await turn();
          if (settled) break;
          throw new Error('the calibration waits on something other than the virtual clock (no timer is pending)');
        }
      }
      if (errors.length > 0) throw new Error(`the ground truth hit ${errors.length} internal error(s); the first: ${errors[0]}`);
      return p;
    },
  };
}
