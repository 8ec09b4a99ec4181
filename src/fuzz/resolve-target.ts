// Resolves `--target emulator|<url>` into a FuzzTarget: "emulator" starts the in-process
// emulator on 127.0.0.1:0 with its own key, a validation endpoint and a model endpoint (no
// other traffic, so §2.4 health can be checked exactly), a scaled clock and scaled rate
// windows; a URL is read as `http://host:port[/v2/<endpoint_id>]` and its facts (an
// emulator's time scale, rate windows and faults) are read by src/target.
import { randomBytes } from 'node:crypto';
import { usageError } from '../errors.js';
import { DEFAULT_API_KEY_ENV, DEFAULT_EMULATOR_TIME_SCALE, EMULATOR_TARGET, TARGET_GRAMMAR, rateWindowRealMs, resolveTargetFlag } from '../target/index.js';
import { startEmulator } from '../emulator/index.js';
import type { FaultName } from '../emulator/faults.js';
import type { FuzzTarget } from './target.js';

export const FUZZ_ENDPOINT = 'fuzz';
export const MODEL_ENDPOINT = 'fuzz-model';
/** Where the emulator mounts GraphQL (§4.3 leaves the address open). */
const EMULATOR_GRAPHQL_PATH = '/graphql';

export interface ResolveFuzzTargetOptions {
  /** "emulator" or a URL. */
  readonly target: string;
  readonly apiKey?: string | undefined;
  /** The variable named by --api-key-env (default QBENCH_API_KEY): curl lines name it. */
  readonly apiKeyEnv?: string | undefined;
  readonly endpointId?: string | undefined;
  readonly modelEndpointId?: string | undefined;
  readonly restUrl?: string | undefined;
  readonly graphqlUrl?: string | undefined;
  /** Emulator only. */
  readonly faults?: readonly FaultName[];
  readonly timeScale?: number | undefined;
}

export interface ResolvedFuzzTarget {
  readonly target: FuzzTarget;
  close(): Promise<void>;
}

export async function resolveFuzzTarget(o: ResolveFuzzTargetOptions): Promise<ResolvedFuzzTarget> {
  const apiKeyEnv = o.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  if (o.target === EMULATOR_TARGET) {
    if (o.restUrl !== undefined || o.graphqlUrl !== undefined || o.endpointId !== undefined || o.modelEndpointId !== undefined) {
      throw usageError('--endpoint, --model-endpoint, --rest-url and --graphql-url apply to a URL target; the emulator target sets them itself');
    }
    const apiKey = o.apiKey ?? `qbench-fuzz-${randomBytes(12).toString('hex')}`;
    // A 90 s wait step takes 1.5 s at the default scale.
    const timeScale = o.timeScale ?? DEFAULT_EMULATOR_TIME_SCALE;
    const emu = await startEmulator({
      apiKey,
      endpoints: [FUZZ_ENDPOINT, MODEL_ENDPOINT],
      timeScale,
      scaleRateWindows: true,
      faults: [...(o.faults ?? [])],
    });
    return {
      target: {
        kind: 'emulator',
        queueUrl: emu.url,
        endpointId: FUZZ_ENDPOINT,
        modelEndpointId: MODEL_ENDPOINT,
        restUrl: emu.url,
        graphqlUrl: `${emu.url}${EMULATOR_GRAPHQL_PATH}`,
        apiKey,
        apiKeyEnv,
        timeScale,
        rateWindowMs: rateWindowRealMs(timeScale, true),
        faults: [...(o.faults ?? [])],
      },
      close: () => emu.close(),
    };
  }
  if ((o.faults?.length ?? 0) > 0 || o.timeScale !== undefined) throw usageError('--fault and --time-scale apply only to --target emulator');
  const resolved = await resolveTargetFlag({
    target: o.target,
    endpointId: o.endpointId,
    apiKey: o.apiKey,
    missingKey: () => usageError('a URL target needs an API key: set the variable named by --api-key-env (default QBENCH_API_KEY, or RUNPOD_API_KEY when that is unset)'),
    unreachable: 'remote',
  });
  if (resolved.kind !== 'url') throw usageError(`--target: ${TARGET_GRAMMAR}`);
  const { queueUrl, endpointId, facts } = resolved;
  return {
    target: {
      kind: facts.kind,
      queueUrl,
      endpointId,
      modelEndpointId: o.modelEndpointId ?? endpointId,
      restUrl: o.restUrl,
      graphqlUrl: o.graphqlUrl,
      apiKey: resolved.apiKey,
      apiKeyEnv,
      timeScale: facts.timeScale,
      rateWindowMs: facts.rateWindowRealMs,
      ...(facts.kind === 'emulator' ? { faults: facts.faults } : {}),
    },
    close: () => Promise.resolve(),
  };
}
