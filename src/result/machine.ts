// Run metadata (the model's `meta`): what machine ran qbench and the helper that
// assembles RunMeta with the command line and target redacted.
import os from 'node:os';
import { redactSecrets } from '../errors.js';
import { VERSION } from '../version.js';
import type { MachineInfo, RunMeta, TargetInfo } from './model.js';

export function collectMachineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    hostname: os.hostname() || 'localhost',
    platform: os.platform(),
    arch: os.arch(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryBytes: os.totalmem(),
    nodeVersion: process.version,
  };
}

export interface BuildMetaInput {
  command: readonly string[];
  startedAt: Date;
  endedAt: Date;
  target: TargetInfo;
  labels?: Record<string, string>;
  machine?: MachineInfo;
}

/** Strip credentials from a URL (user:password@, api_key=) before it goes into a report. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '';
      u.password = '';
    }
    return redactSecrets(u.toString().replace(/\/$/, url.endsWith('/') ? '/' : ''));
  } catch {
    return redactSecrets(url);
  }
}

/** The target with credentials stripped from its URLs. */
export function redactTarget(t: TargetInfo): TargetInfo {
  return {
    ...t,
    queueUrl: redactUrl(t.queueUrl),
    ...(t.restUrl !== undefined ? { restUrl: redactUrl(t.restUrl) } : {}),
    ...(t.graphqlUrl !== undefined ? { graphqlUrl: redactUrl(t.graphqlUrl) } : {}),
  };
}

/** Assemble RunMeta: secrets are removed from the command line and the target URLs. */
export function buildMeta(input: BuildMetaInput): RunMeta {
  const target = redactTarget(input.target);
  return {
    qbenchVersion: VERSION,
    command: redactArgv(input.command),
    startedAt: input.startedAt.toISOString(),
    endedAt: input.endedAt.toISOString(),
    durationMs: Math.max(0, input.endedAt.getTime() - input.startedAt.getTime()),
    target,
    machine: input.machine ?? collectMachineInfo(),
    ...(input.labels ? { labels: { ...input.labels } } : {}),
  };
}

const SECRET_FLAG = /^--?(api-?key|token|secret|password|key)$/i;
const SECRET_FLAG_EQ = /^(--?(?:api-?key|token|secret|password|key)=).*/i;

/** Redact the values of --api-key style flags and anything registered as a secret. */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let hideNext = false;
  for (const arg of argv) {
    if (hideNext) {
      out.push('[REDACTED]');
      hideNext = false;
      continue;
    }
    if (SECRET_FLAG.test(arg)) {
      out.push(arg);
      hideNext = true;
      continue;
    }
    out.push(redactSecrets(arg.replace(SECRET_FLAG_EQ, '$1[REDACTED]')));
  }
  return out;
}
