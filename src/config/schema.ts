// qbench.config.ts (or .js, .mjs, .json): one zod schema for the file a team keeps beside its
// code so CI jobs stop repeating flag lists. Named targets, conformance selection, load
// scenarios, fuzz budgets and the report directory; flags given on the command line win.
import { z } from 'zod';
import { FAULT_NAMES } from '../emulator/faults.js';
import { DeploymentSettings } from '../deployment/index.js';
import { DurationText, EndpointId } from '../spec/index.js';
import { EnvVarName, HttpUrlText } from './text-schemas.js';

export { EnvVarName, HttpUrlText };

export const ConfigTarget = z.strictObject({
  /** "emulator", a base URL, or a URL naming the endpoint (.../v2/<endpoint_id>). */
  url: z.union([z.literal('emulator'), HttpUrlText], { error: '"emulator" or an http(s) URL' }),
  endpoint: EndpointId.optional(),
  restUrl: HttpUrlText.optional(),
  graphqlUrl: HttpUrlText.optional(),
  /** The NAME of the variable holding the key, never the key. */
  apiKeyEnv: EnvVarName.optional(),
  /** Idle endpoints on the same target that checks may take for exact counts. */
  spareEndpoints: z.array(EndpointId).optional(),
});
export type ConfigTarget = z.infer<typeof ConfigTarget>;

export const QbenchConfig = z.strictObject({
  /** Named targets: `--target <name>` picks one. */
  targets: z.record(z.string().regex(/^[A-Za-z][\w-]*$/, { error: 'a target name (a letter, then letters, digits, - and _)' }), ConfigTarget).default({}),
  conformance: z
    .strictObject({
      profile: z.enum(['quick', 'full']).optional(),
      only: z.array(z.string().min(1)).optional(),
      skip: z.array(z.string().min(1)).optional(),
      /** Known-failures (expectations) file, relative to the config file. */
      expectations: z.string().min(1).optional(),
    })
    .default({}),
  load: z
    .strictObject({
      scenarios: z
        .array(
          z.strictObject({
            file: z.string().min(1),
            params: z.record(z.string(), z.string()).optional(),
            thresholds: z.record(z.string(), z.array(z.string().min(1))).optional(),
          }),
        )
        .optional(),
    })
    .default({}),
  fuzz: z
    .strictObject({
      runs: z.number().int().positive().optional(),
      modelRuns: z.number().int().positive().optional(),
      maxCommands: z.number().int().positive().optional(),
      /** e.g. "45s", "5m". */
      maxDuration: DurationText.optional(),
    })
    .default({}),
  /**
   * `qbench emulate`: what a team pins for the emulator its CI starts. The emulator's own
   * schema (src/emulator/config.ts) judges the values together (e.g. workers.min <= max) at start.
   */
  emulator: z
    .strictObject({
      port: z.number().int().min(0).max(65535, { error: 'a TCP port, 0..65535' }).optional(),
      host: z.string().min(1).optional(),
      /** The NAME of the variable holding the accepted key, never the key. */
      apiKeyEnv: EnvVarName.optional(),
      endpoints: z.array(EndpointId).min(1).optional(),
      timeScale: z.number().positive().max(100_000).optional(),
      scaleRateWindows: z.boolean().optional(),
      workers: z
        .strictObject({
          min: z.number().int().nonnegative().optional(),
          max: z.number().int().positive().optional(),
          jobsPerWorker: z.number().int().positive().optional(),
          coldStartMs: z.number().int().nonnegative().optional(),
          idleTimeoutMs: z.number().int().nonnegative().optional(),
        })
        .optional(),
      limits: z.strictObject({ enabled: z.boolean().optional(), requestsPerWorker: z.number().int().nonnegative().optional() }).optional(),
      externalWorkers: z.boolean().optional(),
      simulatedWorkers: z.boolean().optional(),
      workerPingIntervalMs: z.number().int().positive().optional(),
      /** Per endpoint: the deployment (workers, idle timeout, scaler, GPU, timing model), as in the emulator config's `deployments`. */
      deployments: z.record(EndpointId, DeploymentSettings).optional(),
      faults: z.array(z.enum(FAULT_NAMES as unknown as [string, ...string[]], { error: `a fault: ${FAULT_NAMES.join(', ')}` })).optional(),
    })
    .default({}),
  /** Where reports go (default reports/<timestamp>). */
  reportDir: z.string().min(1).optional(),
});
export type QbenchConfig = z.output<typeof QbenchConfig>;
export type QbenchConfigInput = z.input<typeof QbenchConfig>;
