// Test fixture: the REST and GraphQL sub-services mounted on a bare node:http server on
// 127.0.0.1:0, with a recording stand-in for the queue emulator's rollingRelease and
// bindEndpoint. Used where a test needs to see exactly what the sub-services asked of the
// queue part; the full-server tests use startEmulator.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock, type Clock } from '../../../src/emulator/clock.js';
import type { FaultName } from '../../../src/emulator/faults.js';
import { SUB_SERVICES, type EmulatorServices, type SubService } from '../../../src/emulator/sub-services.js';

export const TEST_API_KEY = 'test-key-0123456789';

export interface MountOptions {
  faults?: FaultName[];
  clock?: Clock;
  /** Endpoint ids the stand-in queue part knows (bindEndpoint answers false for others). */
  endpoints?: string[];
  /** How rollingRelease behaves: resolve at once (default), never settle, or reject. */
  release?: 'resolve' | 'hang' | 'reject';
}

export interface Mounted {
  url: string;
  clock: Clock;
  services: EmulatorServices;
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
  const endpoints = new Set(options.endpoints ?? ['ep-1']);
  const services: EmulatorServices = {
    clock,
    apiKey: TEST_API_KEY,
    faults: new Set(options.faults ?? []),
    rollingRelease(templateId, version) {
      releases.push({ templateId, version });
      if (options.release === 'hang') return new Promise<void>(() => {});
      if (options.release === 'reject') return Promise.reject(new Error('release broke'));
      return Promise.resolve();
    },
    bindEndpoint(endpointId, templateId, version) {
      if (!endpoints.has(endpointId)) return false;
      bindings.push({ endpointId, templateId, version });
      return true;
    },
  };
  const subServices = SUB_SERVICES.map((f) => f(services));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    void (async () => {
      for (const s of subServices) if (await s.handle(req, res, url)) return;
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not mounted' }));
    })().catch((e: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(e) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    clock,
    services,
    subServices,
    releases,
    bindings,
    info: () => Object.assign({}, ...subServices.map((s) => s.info?.() ?? {})) as Record<string, unknown>,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of subServices) await s.close?.();
    },
  };
}
