// §2.5 template bodies and record, §4.2 operations (REST). WIRE-COMPAT adds `isRunpod`
// beside the spec's `isProvider`, and errors as `{error, code?}`.
import { z } from 'zod';

export const TEMPLATE_CATEGORIES = ['NVIDIA', 'AMD', 'CPU'] as const;

/** §2.5 defaults applied on create. */
export const TEMPLATE_DEFAULTS = {
  category: 'NVIDIA',
  containerDiskInGb: 50,
  dockerEntrypoint: [] as string[],
  dockerStartCmd: [] as string[],
  isPublic: false,
  isServerless: false,
  readme: '',
  volumeInGb: 20,
  volumeMountPath: '/workspace',
} as const;

/** Highest TCP/UDP port number. */
const MAX_PORT = 65_535;

/** One `<port_number>/<protocol>` entry: port 1-65535, protocol http or tcp (§2.5, §4.3). */
export function isPortEntry(s: string): boolean {
  const m = /^(\d{1,5})\/(http|tcp)$/.exec(s);
  if (!m?.[1]) return false;
  const n = Number(m[1]);
  return n >= 1 && n <= MAX_PORT;
}

/** §2.5 ports: `<port_number>/<protocol>`, protocol http or tcp. */
export const PortSpec = z.string({ error: 'ports entries must be strings' }).refine(isPortEntry, {
  error: 'each ports entry must be <port_number>/<protocol> with port 1-65535 and protocol http or tcp',
});

const nonNegativeGb = (what: string) =>
  z.number({ error: `${what} must be a number` }).int({ error: `${what} must be a whole number of GB` }).nonnegative({ error: `${what} must not be negative` });

const commonFields = {
  imageName: z.string({ error: 'imageName must be a string' }).min(1, { error: 'imageName must not be empty' }),
  name: z.string({ error: 'name must be a string' }).min(1, { error: 'name must not be empty' }),
  containerDiskInGb: nonNegativeGb('containerDiskInGb'),
  containerRegistryAuthId: z.string({ error: 'containerRegistryAuthId must be a string' }),
  dockerEntrypoint: z.array(z.string(), { error: 'dockerEntrypoint must be an array of strings' }),
  dockerStartCmd: z.array(z.string(), { error: 'dockerStartCmd must be an array of strings' }),
  env: z.record(z.string(), z.string({ error: 'env values must be strings' }), { error: 'env must be an object of string values' }),
  isPublic: z.boolean({ error: 'isPublic must be a boolean' }),
  ports: z.array(PortSpec, { error: 'ports must be an array of strings' }),
  readme: z.string({ error: 'readme must be a string' }),
  volumeInGb: nonNegativeGb('volumeInGb'),
  volumeMountPath: z.string({ error: 'volumeMountPath must be a string' }).refine((s) => s.startsWith('/'), { error: 'volumeMountPath must be an absolute path' }),
};

/** §2.5 create body: imageName and name required; category and isServerless create-only. */
export const TemplateCreate = z.strictObject({
  imageName: commonFields.imageName,
  name: commonFields.name,
  category: z.enum(TEMPLATE_CATEGORIES, { error: 'category must be one of NVIDIA, AMD, CPU' }).optional(),
  containerDiskInGb: commonFields.containerDiskInGb.optional(),
  containerRegistryAuthId: commonFields.containerRegistryAuthId.optional(),
  dockerEntrypoint: commonFields.dockerEntrypoint.optional(),
  dockerStartCmd: commonFields.dockerStartCmd.optional(),
  env: commonFields.env.optional(),
  isPublic: commonFields.isPublic.optional(),
  isServerless: z.boolean({ error: 'isServerless must be a boolean' }).optional(),
  ports: commonFields.ports.optional(),
  readme: commonFields.readme.optional(),
  volumeInGb: commonFields.volumeInGb.optional(),
  volumeMountPath: commonFields.volumeMountPath.optional(),
});
export type TemplateCreate = z.infer<typeof TemplateCreate>;

/** A create body with the §2.5 defaults filled in (fresh arrays, so callers may mutate them). */
export type TemplateCreateResolved = TemplateCreate & {
  category: (typeof TEMPLATE_CATEGORIES)[number];
  containerDiskInGb: number;
  dockerEntrypoint: string[];
  dockerStartCmd: string[];
  isPublic: boolean;
  isServerless: boolean;
  readme: string;
  volumeInGb: number;
  volumeMountPath: string;
};

export function applyTemplateDefaults(body: TemplateCreate): TemplateCreateResolved {
  return {
    ...body,
    category: body.category ?? TEMPLATE_DEFAULTS.category,
    containerDiskInGb: body.containerDiskInGb ?? TEMPLATE_DEFAULTS.containerDiskInGb,
    dockerEntrypoint: [...(body.dockerEntrypoint ?? TEMPLATE_DEFAULTS.dockerEntrypoint)],
    dockerStartCmd: [...(body.dockerStartCmd ?? TEMPLATE_DEFAULTS.dockerStartCmd)],
    isPublic: body.isPublic ?? TEMPLATE_DEFAULTS.isPublic,
    isServerless: body.isServerless ?? TEMPLATE_DEFAULTS.isServerless,
    readme: body.readme ?? TEMPLATE_DEFAULTS.readme,
    volumeInGb: body.volumeInGb ?? TEMPLATE_DEFAULTS.volumeInGb,
    volumeMountPath: body.volumeMountPath ?? TEMPLATE_DEFAULTS.volumeMountPath,
  };
}

/** Fields §2.5 marks "not accepted" on update. */
export const CREATE_ONLY_TEMPLATE_FIELDS = ['category', 'isServerless'] as const;

/** §2.5 update body: every writable field optional, create-only fields refused. */
export const TemplateUpdate = z.strictObject({
  imageName: commonFields.imageName.optional(),
  name: commonFields.name.optional(),
  containerDiskInGb: commonFields.containerDiskInGb.optional(),
  containerRegistryAuthId: commonFields.containerRegistryAuthId.optional(),
  dockerEntrypoint: commonFields.dockerEntrypoint.optional(),
  dockerStartCmd: commonFields.dockerStartCmd.optional(),
  env: commonFields.env.optional(),
  isPublic: commonFields.isPublic.optional(),
  ports: commonFields.ports.optional(),
  readme: commonFields.readme.optional(),
  volumeInGb: commonFields.volumeInGb.optional(),
  volumeMountPath: commonFields.volumeMountPath.optional(),
});
export type TemplateUpdate = z.infer<typeof TemplateUpdate>;

/** §2.5 response record (same for create and update). */
export const TemplateRecord = z.looseObject({
  id: z.string(),
  name: z.string(),
  imageName: z.string(),
  category: z.enum(TEMPLATE_CATEGORIES),
  containerDiskInGb: z.number().int(),
  containerRegistryAuthId: z.string().optional(),
  dockerEntrypoint: z.array(z.string()),
  dockerStartCmd: z.array(z.string()),
  env: z.record(z.string(), z.string()).optional(),
  isPublic: z.boolean(),
  isServerless: z.boolean(),
  ports: z.array(z.string()).optional(),
  readme: z.string(),
  volumeInGb: z.number().int(),
  volumeMountPath: z.string(),
  earned: z.number(),
  isProvider: z.boolean(),
  isRunpod: z.boolean().optional(),
  runtimeInMin: z.number().int(),
});
export type TemplateRecord = z.infer<typeof TemplateRecord>;

/** WIRE-COMPAT REST error body. */
export const RestErrorBody = z.looseObject({ error: z.string(), code: z.unknown().optional() });
