// §2.6 pod, §2.7 GPU type, §3.2 pod states and §4.3 GraphQL operations, plus the extra
// fields and operations WIRE-COMPAT lists (podTerminate, costPerHr, gpuCount, ...).
import { z } from 'zod';
import { isPortEntry } from './template.js';

/** §3.2 desiredStatus values the spec names. */
export const POD_STATUSES = ['RUNNING', 'EXITED'] as const;
/** Values seen beyond the spec ("other pod states: not shown"). */
export const POD_STATUSES_EXTRA = ['CREATED', 'TERMINATED'] as const;

export const STOCK_STATUSES = ['High', 'Medium', 'Low', 'None'] as const;
export const CLOUD_TYPES = ['ALL', 'SECURE', 'COMMUNITY'] as const;

/** §3.2 pod state machine as a table. */
export const POD_TRANSITIONS = [
  { from: 'EXITED', trigger: 'podResume', kind: 'on-demand', to: 'RUNNING', section: '§3.2' },
  { from: 'EXITED', trigger: 'podBidResume', kind: 'spot', to: 'RUNNING', section: '§3.2' },
  { from: 'RUNNING', trigger: 'podStop', kind: 'any', to: 'EXITED', section: '§3.2' },
] as const;

const PortMapping = z.looseObject({
  ip: z.string(),
  isIpPublic: z.boolean(),
  privatePort: z.number().int(),
  publicPort: z.number().int(),
  type: z.string(),
});

/** §2.6 pod fields (all selectable, so all optional in an answer). */
export const PodRecord = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  imageName: z.string().optional(),
  env: z.array(z.string()).optional(),
  machineId: z.string().optional(),
  machine: z.looseObject({ podHostId: z.string().optional(), gpuDisplayName: z.string().optional() }).nullable().optional(),
  desiredStatus: z.string().optional(),
  runtime: z
    .looseObject({
      uptimeInSeconds: z.number().int().optional(),
      ports: z.array(PortMapping).nullable().optional(),
      gpus: z.array(z.looseObject({ id: z.string(), gpuUtilPercent: z.number(), memoryUtilPercent: z.number() })).nullable().optional(),
      container: z.looseObject({ cpuPercent: z.number(), memoryPercent: z.number() }).nullable().optional(),
    })
    .nullable()
    .optional(),
  costPerHr: z.number().optional(),
  gpuCount: z.number().int().optional(),
  vcpuCount: z.number().optional(),
  memoryInGb: z.number().optional(),
  lastStatusChange: z.string().optional(),
  uptimeSeconds: z.number().int().optional(),
  podType: z.string().optional(),
});
export type PodRecord = z.infer<typeof PodRecord>;

/** §2.7 GPU type. */
export const GpuTypeRecord = z.looseObject({
  id: z.string(),
  displayName: z.string().optional(),
  memoryInGb: z.number().int().optional(),
  secureCloud: z.boolean().optional(),
  communityCloud: z.boolean().optional(),
  lowestPrice: z
    .looseObject({
      minimumBidPrice: z.number().nullable().optional(),
      uninterruptablePrice: z.number().nullable().optional(),
      stockStatus: z.enum(STOCK_STATUSES).nullable().optional(),
      availableGpuCounts: z.array(z.number().int()).optional(),
    })
    .nullable()
    .optional(),
});
export type GpuTypeRecord = z.infer<typeof GpuTypeRecord>;

const EnvPair = z.strictObject({ key: z.string(), value: z.string() });
/** §4.3 ports: one string of `<port>/<protocol>` entries, comma-separated as the public API takes them. */
const PortString = z.string({ error: 'ports must be a string' }).refine((s) => s.split(',').every(isPortEntry), {
  error: 'ports must be <port>/<protocol>[,...] with port 1-65535 and protocol http or tcp',
});
const positiveInt = (what: string) => z.number({ error: `${what} must be a number` }).int({ error: `${what} must be an integer` }).nonnegative();

/** §4.3 podFindAndDeployOnDemand input. */
export const PodDeployInput = z.looseObject({
  cloudType: z.enum(CLOUD_TYPES).optional(),
  gpuCount: positiveInt('gpuCount').min(1, { error: 'gpuCount must be at least 1' }),
  volumeInGb: positiveInt('volumeInGb').optional(),
  containerDiskInGb: positiveInt('containerDiskInGb').optional(),
  minVcpuCount: positiveInt('minVcpuCount').optional(),
  minMemoryInGb: positiveInt('minMemoryInGb').optional(),
  gpuTypeId: z.string(),
  name: z.string().optional(),
  imageName: z.string(),
  dockerArgs: z.string().optional(),
  ports: PortString.optional(),
  volumeMountPath: z.string().optional(),
  env: z.array(EnvPair).optional(),
  allowedCudaVersions: z.array(z.string()).optional(),
});
export type PodDeployInput = z.infer<typeof PodDeployInput>;

/** §4.3 podRentInterruptable input: deploy input plus bidPerGpu. */
export const PodRentInterruptableInput = PodDeployInput.extend({ bidPerGpu: z.number().positive() });
export const PodResumeInput = z.looseObject({ podId: z.string(), gpuCount: positiveInt('gpuCount').min(1), allowedCudaVersions: z.array(z.string()).optional() });
export const PodBidResumeInput = z.looseObject({ podId: z.string(), bidPerGpu: z.number().positive(), gpuCount: positiveInt('gpuCount').min(1) });
export const PodStopInput = z.looseObject({ podId: z.string() });
export type PodRentInterruptableInput = z.infer<typeof PodRentInterruptableInput>;
export type PodResumeInput = z.infer<typeof PodResumeInput>;
export type PodBidResumeInput = z.infer<typeof PodBidResumeInput>;
export type PodStopInput = z.infer<typeof PodStopInput>;
/** WIRE-COMPAT podTerminate(input: {podId}). */
export const PodTerminateInput = z.looseObject({ podId: z.string() });
export type PodTerminateInput = z.infer<typeof PodTerminateInput>;
/** §4.3 pod(input: {podId}). */
export const PodFilterInput = z.looseObject({ podId: z.string() });
export type PodFilterInput = z.infer<typeof PodFilterInput>;
/** §4.3 gpuTypes optional input `{id}`. */
export const GpuTypeFilterInput = z.looseObject({ id: z.string().optional() });
export type GpuTypeFilterInput = z.infer<typeof GpuTypeFilterInput>;
/** §2.7 lowestPrice(input: {gpuCount, secureCloud}). */
export const LowestPriceInput = z.looseObject({ gpuCount: positiveInt('gpuCount').min(1, { error: 'gpuCount must be at least 1' }), secureCloud: z.boolean().optional() });
export type LowestPriceInput = z.infer<typeof LowestPriceInput>;

/** §4.3 the GraphQL request body. */
export const GraphqlRequest = z.looseObject({
  query: z.string(),
  variables: z.record(z.string(), z.unknown()).nullable().optional(),
  operationName: z.string().nullable().optional(),
});

/** Standard GraphQL answer (WIRE-COMPAT: errors come with HTTP 200). */
export const GraphqlAnswer = z.looseObject({
  data: z.record(z.string(), z.unknown()).nullable().optional(),
  errors: z
    .array(z.looseObject({ message: z.string(), path: z.array(z.union([z.string(), z.number()])).optional(), extensions: z.record(z.string(), z.unknown()).optional() }))
    .optional(),
});
export type GraphqlAnswer = z.infer<typeof GraphqlAnswer>;

/** WIRE-COMPAT: the error text the service gives when no stock is left. */
export const NO_INSTANCES_MESSAGE =
  'There are no longer any instances available with the requested specifications. Please refresh and try again.';
