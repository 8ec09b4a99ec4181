// The built `qbench emulate --emulator-config <file>` serves a file with a per-endpoint
// deployment (as `qbench calibrate` writes one): it prints the deployment, scales from zero on
// the queue-delay scaler, answers with the modelled timings, and meters the worker in
// /_qbench/counters. A deployment for an endpoint it does not serve is a usage error (exit 2),
// checked through the CLI's main() in-process (no second process start).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_BIN } from '../../global-setup.js';
import { EndpointBillingCounters } from '../../../src/spec/index.js';
import { killAll, until } from './helpers.js';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { EXIT } from '../../../src/exit-codes.js';

const KEY = 'deployment-config-key-5521';
const procs: ReturnType<typeof spawn>[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await killAll(procs);
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function configFile(body: unknown): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'qbench-deployment-'));
  dirs.push(dir);
  const file = path.join(dir, 'emulator.json');
  await writeFile(file, JSON.stringify(body));
  return file;
}

function emulate(file: string) {
  const proc = spawn(process.execPath, [BUILT_BIN, 'emulate', '--port', '0', '--host', '127.0.0.1', '--api-key', KEY, '--emulator-config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(proc);
  const io = { out: '', err: '' };
  proc.stdout.on('data', (d: Buffer) => (io.out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (io.err += d.toString()));
  return { proc, io };
}

describe('qbench emulate --emulator-config with deployments (built CLI)', () => {
  it('serves the per-endpoint deployment: scaling from zero, modelled timings, billing in the counters', { timeout: 60_000 }, async () => {
    // Emulated ms at scale 50: the 3 s cold start is 60 ms real.
    const file = await configFile({
      timeScale: 50,
      endpoints: ['twin', 'plain'],
      deployments: {
        twin: {
          workersMin: 0, workersMax: 2, idleTimeoutS: 600, scalerType: 'QUEUE_DELAY', scalerValue: 1, gpuTypeId: 'A100 80GB', seed: 7,
          timing: { coldStart: { kind: 'constant', ms: 3000 }, execution: { kind: 'constant', ms: 1500 }, overhead: { kind: 'constant', ms: 250 } },
        },
      },
    });
    const { io } = emulate(file);
    await until(() => /ready on \S+/.test(io.out), 'the ready line', 30_000);
    const url = (/ready on (\S+)/.exec(io.out) ?? [])[1] as string;
    expect(io.out).toContain('deployment twin: workers 0..2 (1 job each), idle timeout 600 s, scaler QUEUE_DELAY 1 s, 1x A100 80GB, seed 7');
    const auth = { authorization: KEY };
    const health = async (ep: string) => ((await (await fetch(`${url}/v2/${ep}/health`, { headers: auth })).json()) as { workers: Record<string, number> }).workers;
    expect(await health('twin')).toMatchObject({ idle: 0, initializing: 0, throttled: 0, unhealthy: 0 });
    // The endpoint without a deployment keeps the emulator's own pool (one warm worker by default).
    const plain = await health('plain');
    expect((plain['idle'] ?? 0) + (plain['initializing'] ?? 0)).toBe(1);

    const r = await fetch(`${url}/v2/twin/runsync?wait=60000`, { method: 'POST', headers: auth, body: JSON.stringify({ input: { prompt: 'x' } }) });
    const rec = (await r.json()) as { status: string; delayTime: number; executionTime: number };
    expect(rec.status).toBe('COMPLETED');
    expect(rec.executionTime).toBeGreaterThanOrEqual(1500);
    // Waited > 1 s (the scaler's value) to the next 1 s check, then a 3 s cold start.
    expect(rec.delayTime).toBeGreaterThanOrEqual(1000 + 3000);
    expect(await health('twin')).toMatchObject({ idle: 1, running: 0 });

    const counters = (await (await fetch(`${url}/_qbench/counters`, { headers: auth })).json()) as { endpoints: Record<string, { billing: unknown; deployment: { scaler: { type: string } } }> };
    const b = EndpointBillingCounters.parse(counters.endpoints['twin']?.billing);
    expect(counters.endpoints['twin']?.deployment.scaler.type).toBe('QUEUE_DELAY');
    expect(b).toMatchObject({ gpuTypeId: 'A100 80GB', workerStarts: 1, coldStarts: 1, peakWorkers: 1, activeS: 0 });
    // At least the 3 s cold start; host timers fire late by a few real ms (x50 emulated) on a loaded machine.
    expect(b.initializingS).toBeGreaterThanOrEqual(3);
    expect(b.initializingS).toBeLessThan(3 + 2.5);
    expect(b.flexS).toBeGreaterThanOrEqual(2);
    expect(b.costUsd).toBeCloseTo(b.flexS * 0.00076, 12);
  });

  it('a deployment for an endpoint it does not serve is a usage error naming it', async () => {
    const file = await configFile({ endpoints: ['a'], deployments: { b: { workersMax: 2 } } });
    const err: string[] = [];
    const io: CliIo = { stdout: () => undefined, stderr: (t) => err.push(t), isTty: false, env: {}, signal: new AbortController().signal };
    expect(await main(['emulate', '--port', '0', '--api-key', KEY, '--emulator-config', file], io)).toBe(EXIT.USAGE);
    expect(err.join('')).toMatch(/deployments\.b: no such endpoint; served: a/);
  });
});
