// The environment a worker process needs to attach to an emulator endpoint (WIRE-COMPAT
// "Worker side protocol"): the RUNPOD_WEBHOOK_* URL templates, each with its `?` already in it,
// the worker id, the raw API key, the ping interval, the emulator's time scale, and the switches
// that keep the official Python worker's start-up checks off (one of them dials a public DNS
// address, so offline the worker would exit before taking a job).
import { emulatorUrls } from './worker.js';

export interface WorkerEnvOptions {
  /** Emulator base URL, http://host:port. */
  readonly baseUrl: string;
  readonly endpointId: string;
  readonly workerId: string;
  readonly apiKey: string;
  /** Real ms between pings the emulator expects (its workerPingIntervalMs). */
  readonly pingIntervalMs: number;
  /** Emulated ms per real ms: a handler honouring emulated delays (mock_delay) divides by it. */
  readonly timeScale: number;
}

/**
 * The smallest ping interval a worker environment may carry: the official Python worker floors
 * RUNPOD_PING_INTERVAL to whole seconds, and below one second its heartbeat thread dies.
 */
export const MIN_WORKER_PING_INTERVAL_MS = 1_000;

/** Variable name -> value, in the order a worker's docs list them. */
export function workerEnv(o: WorkerEnvOptions): Record<string, string> {
  const u = emulatorUrls(o.baseUrl.replace(/\/+$/, ''), o.endpointId, o.workerId);
  return {
    RUNPOD_WEBHOOK_GET_JOB: u.getJob,
    RUNPOD_WEBHOOK_POST_OUTPUT: u.postOutput,
    RUNPOD_WEBHOOK_POST_STREAM: u.postStream,
    // The ping URL of WIRE-COMPAT has no query of its own; `?` keeps "append &name=value" valid.
    RUNPOD_WEBHOOK_PING: u.ping.includes('?') ? u.ping : `${u.ping}?`,
    RUNPOD_POD_ID: o.workerId,
    RUNPOD_AI_API_KEY: o.apiKey,
    RUNPOD_ENDPOINT_ID: o.endpointId,
    RUNPOD_PING_INTERVAL: String(o.pingIntervalMs),
    QBENCH_TIME_SCALE: String(o.timeScale),
    RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true',
    RUNPOD_SKIP_GPU_CHECK: 'true',
  };
}

/** `export NAME='value'` lines for a POSIX shell (single quotes keep `$ID` literal). */
export function formatShellEnv(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `export ${k}='${v.replaceAll("'", `'\\''`)}'\n`)
    .join('');
}
