// Test fixture: the whole emulator (startEmulator, the real server, on 127.0.0.1:0) with the
// REST and GraphQL sub-services mounted as in production, except that the services they are
// given record each rollingRelease and bindEndpoint call before passing it to the queue
// part (or, for the failure tests, answer in place of it).
import { startEmulator } from '../../../src/emulator/index.js';
import { ManualClock, type Clock } from '../../../src/emulator/clock.js';
import type { FaultName } from '../../../src/emulator/faults.js';
import type { EmulatorServices, SubService } from '../../../src/emulator/sub-services.js';
import { SUB_SERVICES } from '../../../src/emulator/sub-service-list.js';
import type { EmulatorCore } from '../../../src/emulator/core.js';

export const TEST_API_KEY = 'test-key-0123456789';

export interface MountOptions {
  faults?: FaultName[];
  clock?: Clock;
  /** Queue endpoint ids of the emulator (bindEndpoint answers false for others). */
  endpoints?: string[];
  /** How rollingRelease behaves: the queue part's (default), never settle, or reject. */
  release?: 'queue' | 'hang' | 'reject';
}

export interface Mounted {
  url: string;
  clock: Clock;
  core: EmulatorCore;
  subServices: SubService[];
  releases: { templateId: string; version: number }[];
  bindings: { endpointId: string; templateId: string; version: number }[];
  info(): Record<string, unknown>;
  close(): Promise<void>;
}

export async function mountSubServices(options: MountOptions = {}): Promise<Mounted> {
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 0, 1));
  const releases: Mounted['releases'] = [];
  const bindings: Mounted['bindings'] = [];
  const recording = (services: EmulatorServices): EmulatorServices => ({
    clock: services.clock,
    apiKey: services.apiKey,
    faults: services.faults,
    ...(services.endpointTemplates ? { endpointTemplates: services.endpointTemplates } : {}),
    rollingRelease(templateId, version) {
      releases.push({ templateId, version });
      if (options.release === 'hang') return new Promise<void>(() => {});
      if (options.release === 'reject') return Promise.reject(new Error('release broke'));
      return services.rollingRelease(templateId, version);
    },
    bindEndpoint(endpointId, templateId, version) {
      const ok = services.bindEndpoint?.(endpointId, templateId, version) ?? false;
      if (ok) bindings.push({ endpointId, templateId, version });
      return ok;
    },
  });
  // One recording services object shared by both factories, as the real core shares one.
  let shared: EmulatorServices | undefined;
  const factories = SUB_SERVICES.map((f) => (services: EmulatorServices) => f((shared ??= recording(services))));
  const handle = await startEmulator(
    { apiKey: TEST_API_KEY, endpoints: options.endpoints ?? ['ep-1'], faults: options.faults ?? [], workers: { min: 0 } },
    { clock, subServices: factories },
  );
  return {
    url: handle.url,
    clock,
    core: handle.core,
    subServices: handle.core.subServices,
    releases,
    bindings,
    info: () => Object.assign({}, ...handle.core.subServices.map((s) => s.info?.() ?? {})) as Record<string, unknown>,
    close: () => handle.close(),
  };
}
