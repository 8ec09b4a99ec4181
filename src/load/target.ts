// Where `qbench load` sends its traffic: `emulator` starts the in-process emulator (port 0,
// a random key, optional time scale and scaled rate windows); a URL names a real or remote
// endpoint (http://host:port[/v2/<endpoint_id>]). The target's facts (an emulator's time
// scale and the advertised limits the shipped scenarios aim at) come from src/target.
import { randomBytes } from 'node:crypto';
import { registerSecret, usageError } from '../errors.js';
import { readTargetFacts, resolveTargetFlag } from '../target/index.js';
import type { EmulatorConfigInput } from '../emulator/index.js';
import type { LoadTarget } from './context.js';

export interface ResolveTargetOptions {
  /** 'emulator' or a URL. */
  readonly target: string;
  readonly endpointId?: string | undefined;
  readonly apiKey?: string | undefined;
  /** Emulator only. */
  readonly emulator?: Partial<EmulatorConfigInput> | undefined;
}

export interface ResolvedTarget {
  readonly target: LoadTarget;
  close(): Promise<void>;
}

export async function resolveTarget(o: ResolveTargetOptions): Promise<ResolvedTarget> {
  // An unreachable URL is no error here: the preflight says so before any load is sent.
  const resolved = await resolveTargetFlag({ target: o.target, endpointId: o.endpointId, apiKey: o.apiKey, unreachable: 'remote' });
  if (resolved.kind === 'emulator') {
    const { startEmulator } = await import('../emulator/index.js');
    const apiKey = o.apiKey ?? `qb-${randomBytes(12).toString('hex')}`;
    registerSecret(apiKey);
    const emu = await startEmulator({ ...o.emulator, apiKey, port: 0, host: '127.0.0.1' });
    const endpointId = resolved.endpointId ?? emu.config.endpoints[0] ?? 'demo';
    if (!emu.config.endpoints.includes(endpointId)) {
      await emu.close();
      throw usageError(`--endpoint: the emulator serves ${emu.config.endpoints.join(', ')}, not "${endpointId}"`);
    }
    const { info } = await readTargetFacts(emu.url, { apiKey, unreachable: 'remote' }).catch(async (e: unknown) => {
      await emu.close();
      throw e;
    });
    return {
      target: { kind: 'emulator', queueUrl: emu.url, endpointId, apiKey, timeScale: emu.clock.scale, info },
      close: () => emu.close(),
    };
  }
  const { queueUrl, endpointId, facts } = resolved;
  return {
    target: { kind: 'remote', queueUrl, endpointId, apiKey: o.apiKey, timeScale: facts.timeScale, info: facts.info },
    close: () => Promise.resolve(),
  };
}
