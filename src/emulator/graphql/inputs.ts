// Validation of the GraphQL mutation and query inputs (§4.3) with the spec's zod schemas:
// every problem is named as "<field>: <rule>" in one GraphQL error (extensions.code
// BAD_USER_INPUT), and the defaults of §2.5 (disk, volume, mount path) apply to pods too.
import { GraphQLError } from 'graphql';
import { z } from 'zod';
import { PodDeployInput, PodRentInterruptableInput, TEMPLATE_DEFAULTS } from '../../spec/index.js';
import type { DeploySpec } from './pod-store.js';

export const BAD_USER_INPUT = 'BAD_USER_INPUT';
/** WIRE-COMPAT: the service's own refusals carry extensions.code RUNPOD. */
export const SERVICE_REFUSAL = 'RUNPOD';

const MAX_PORT = 65_535;

export interface FieldProblem {
  readonly field: string;
  readonly rule: string;
}

export function inputError(problems: readonly FieldProblem[]): GraphQLError {
  return new GraphQLError(problems.map((p) => `${p.field}: ${p.rule}`).join('; '), {
    extensions: { code: BAD_USER_INPUT, problems },
  });
}

export function refusal(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: SERVICE_REFUSAL } });
}

/** GraphQL nulls mean "not given": drop them so the zod optionals apply. */
function withoutNulls(input: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof input !== 'object' || input === null) return out;
  for (const [k, v] of Object.entries(input)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

const wholeGb = () =>
  z.number({ error: 'must be a number' }).int({ error: 'must be a whole number of GB' }).nonnegative({ error: 'must not be negative' });
const count = (min: number) =>
  z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).min(min, { error: `must be at least ${min}` });

/** Ports as the clients send them: `8888/http,22/tcp` (the Python SDK strips spaces; so do we). */
const PortList = z
  .string({ error: 'must be a string' })
  .transform((s) => s.replace(/\s+/g, ''))
  .refine((s) => s === '' || s.split(',').every((e) => {
    const m = /^(\d{1,5})\/(http|tcp)$/.exec(e);
    return m?.[1] !== undefined && Number(m[1]) >= 1 && Number(m[1]) <= MAX_PORT;
  }), { error: 'must be <port>/<protocol>[,...] with port 1-65535 and protocol http or tcp' });

const podFieldOverrides = {
  gpuCount: count(1),
  gpuTypeId: z.string({ error: 'is required' }).min(1, { error: 'must not be empty' }),
  imageName: z.string({ error: 'is required' }).min(1, { error: 'must not be empty' }),
  volumeInGb: wholeGb().optional(),
  containerDiskInGb: wholeGb().optional(),
  minVcpuCount: count(0).optional(),
  minMemoryInGb: count(0).optional(),
  ports: PortList.optional(),
  volumeMountPath: z.string().refine((s) => s.startsWith('/'), { error: 'must be an absolute path' }).optional(),
  env: z.array(z.object({ key: z.string().min(1, { error: 'must not be empty' }), value: z.string() })).optional(),
  templateId: z.string().optional(),
  dataCenterId: z.string().optional(),
};

const DeployInput = PodDeployInput.extend(podFieldOverrides);
const SpotInput = PodRentInterruptableInput.extend({
  ...podFieldOverrides,
  bidPerGpu: z.number({ error: 'is required' }).positive({ error: 'must be greater than 0' }),
});

const ResumeInput = z.looseObject({
  podId: z.string({ error: 'is required' }).min(1, { error: 'must not be empty' }),
  gpuCount: count(1).optional(),
  allowedCudaVersions: z.array(z.string()).optional(),
});
const BidResumeInput = ResumeInput.extend({
  bidPerGpu: z.number({ error: 'is required' }).positive({ error: 'must be greater than 0' }),
});
const PodIdInput = z.looseObject({ podId: z.string({ error: 'is required' }).min(1, { error: 'must not be empty' }) });
const LowestPriceInput = z.looseObject({
  gpuCount: count(1).optional(),
  secureCloud: z.boolean().optional(),
  minVcpuCount: count(0).optional(),
  minMemoryInGb: count(0).optional(),
  allowedCudaVersions: z.array(z.string()).optional(),
  dataCenterId: z.string().optional(),
});

function parse<S extends z.ZodType>(schema: S, raw: unknown, prefix: string): z.output<S> {
  if (raw === null || raw === undefined) throw inputError([{ field: 'input', rule: 'is required' }]);
  const r = schema.safeParse(withoutNulls(raw));
  if (r.success) return r.data;
  throw inputError(
    r.error.issues.map((i) => ({
      field: `${prefix}${i.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${String(s)}`)).join('')}`,
      rule: i.message,
    })),
  );
}

/** A deploy request with every default applied; `template` fills in what the input leaves out. */
export interface DeployRequest extends DeploySpec {
  /** Spot deploys only: the bid per GPU and hour. */
  readonly bidPerGpu?: number | undefined;
}

/** Fields a pod template can supply (§2.5 shape). */
export interface TemplateDefaults {
  readonly imageName: string;
  readonly env?: Record<string, string> | undefined;
  readonly ports?: readonly string[] | undefined;
  readonly volumeInGb?: number | undefined;
  readonly containerDiskInGb?: number | undefined;
  readonly volumeMountPath?: string | undefined;
  readonly dockerStartCmd?: readonly string[] | undefined;
}

/**
 * Validate a podFindAndDeployOnDemand / podRentInterruptable input. `templateOf` looks up a
 * `templateId` (null: unknown, which is reported as a problem of that field).
 */
export function parseDeployInput(raw: unknown, spot: boolean, templateOf: (id: string) => TemplateDefaults | null | 'serverless'): DeployRequest {
  const cleaned = withoutNulls(raw);
  // runpodctl sends templateId "" when it has none.
  const templateId = typeof cleaned.templateId === 'string' && cleaned.templateId !== '' ? cleaned.templateId : null;
  let template: TemplateDefaults | null = null;
  if (templateId !== null) {
    const t = templateOf(templateId);
    if (t === null) throw inputError([{ field: 'input.templateId', rule: `no template with id "${templateId}"` }]);
    if (t === 'serverless') throw inputError([{ field: 'input.templateId', rule: `template "${templateId}" is a serverless template; pods need a pod template` }]);
    template = t;
    if (cleaned.imageName === undefined || cleaned.imageName === '') cleaned.imageName = t.imageName;
  }
  const v = spot ? parse(SpotInput, raw === null || raw === undefined ? raw : cleaned, 'input') : parse(DeployInput, raw === null || raw === undefined ? raw : cleaned, 'input');
  const env = v.env ?? (template?.env ? Object.entries(template.env).map(([key, value]) => ({ key, value })) : []);
  return {
    // No name (or the empty one runpodctl sends): named after the image, as runpodctl does itself.
    name: v.name !== undefined && v.name !== '' ? v.name : (v.imageName.split(':')[0] ?? v.imageName),
    imageName: v.imageName,
    env,
    dockerArgs: v.dockerArgs ?? template?.dockerStartCmd?.join(' ') ?? '',
    ports: v.ports ?? template?.ports?.join(',') ?? '',
    volumeInGb: v.volumeInGb ?? template?.volumeInGb ?? TEMPLATE_DEFAULTS.volumeInGb,
    containerDiskInGb: v.containerDiskInGb ?? template?.containerDiskInGb ?? TEMPLATE_DEFAULTS.containerDiskInGb,
    volumeMountPath: v.volumeMountPath ?? template?.volumeMountPath ?? TEMPLATE_DEFAULTS.volumeMountPath,
    gpuTypeId: v.gpuTypeId,
    gpuCount: v.gpuCount,
    cloud: v.cloudType ?? 'ALL',
    allowedCudaVersions: v.allowedCudaVersions,
    minVcpuCount: v.minVcpuCount,
    minMemoryInGb: v.minMemoryInGb,
    dataCenterId: v.dataCenterId,
    templateId,
    ...(spot && 'bidPerGpu' in v ? { bidPerGpu: v.bidPerGpu as number } : {}),
  };
}

export const parseResumeInput = (raw: unknown) => parse(ResumeInput, raw, 'input');
export const parseBidResumeInput = (raw: unknown) => parse(BidResumeInput, raw, 'input');
export const parsePodIdInput = (raw: unknown) => parse(PodIdInput, raw, 'input');

export function parseLowestPriceInput(raw: unknown) {
  const v = raw === null || raw === undefined ? {} : parse(LowestPriceInput, raw, 'input');
  return { ...v, gpuCount: v.gpuCount ?? 1 };
}
