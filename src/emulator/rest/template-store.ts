// The emulator's templates (§2.5, §4.2): stored values, defaults, name uniqueness, the
// version each update bumps, endpoint bindings and the rolling releases they start.
// One store per emulator, shared with the GraphQL part (pods deployed from a template add
// to its `runtimeInMin`) through `templateStoreFor(services)`.
import { randomBytes } from 'node:crypto';
import { MINUTE_MS, TEMPLATE_DEFAULTS, type TEMPLATE_CATEGORIES, type TemplateCreate } from '../../spec/index.js';
import type { EmulatorServices } from '../sub-services.js';
import type { TemplateUpdateBody } from './template-validation.js';

type Category = (typeof TEMPLATE_CATEGORIES)[number];

/** The writable fields of §2.5 as stored (defaults applied unless the defaults fault is on). */
export interface TemplateFields {
  name: string;
  imageName: string;
  category?: Category;
  containerDiskInGb?: number;
  containerRegistryAuthId?: string;
  dockerEntrypoint?: string[];
  dockerStartCmd?: string[];
  env?: Record<string, string>;
  isPublic?: boolean;
  isServerless?: boolean;
  ports?: string[];
  readme?: string;
  volumeInGb?: number;
  volumeMountPath?: string;
}

export interface StoredTemplate {
  readonly id: string;
  /** 1 on create; every accepted update adds one (the version workers of a rolling release carry). */
  version: number;
  /** 'provider': an official template managed by the operator (§2.5 isProvider); read-only. */
  readonly owner: 'user' | 'provider';
  readonly createdAtMs: number;
  updatedAtMs: number;
  fields: TemplateFields;
  /** Credits and runtime that seeded provider templates start with. */
  readonly baseEarned: number;
  readonly baseRuntimeMs: number;
}

/** §2.5 response record, plus WIRE-COMPAT's `isRunpod`. */
export type TemplateRecordOut = TemplateFields & {
  id: string;
  earned: number;
  isProvider: boolean;
  isRunpod: boolean;
  runtimeInMin: number;
};

export type ReleaseState =
  | { readonly state: 'rolling'; readonly templateId: string; readonly version: number; readonly startedAtMs: number }
  | { readonly state: 'done'; readonly templateId: string; readonly version: number; readonly startedAtMs: number; readonly finishedAtMs: number }
  | { readonly state: 'failed'; readonly templateId: string; readonly version: number; readonly startedAtMs: number; readonly finishedAtMs: number; readonly error: string };

export type CreateOutcome = { readonly kind: 'created'; readonly template: StoredTemplate } | { readonly kind: 'duplicate-name'; readonly name: string };
export type UpdateOutcome =
  | { readonly kind: 'updated'; readonly template: StoredTemplate }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'read-only' }
  | { readonly kind: 'duplicate-name'; readonly name: string };
export type DeleteOutcome =
  | { readonly kind: 'deleted' }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'read-only' }
  | { readonly kind: 'in-use'; readonly endpointIds: readonly string[] };

/** Official templates every emulator starts with (so that isProvider/isRunpod true can be seen). */
const PROVIDER_TEMPLATES: readonly { id: string; fields: TemplateFields; earned: number; runtimeMin: number }[] = [
  {
    id: 'runpod-torch-v240',
    fields: {
      name: 'Runpod Pytorch 2.4.0',
      imageName: 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04',
      ports: ['8888/http', '22/tcp'],
      isPublic: true,
      isServerless: false,
      readme: '# Runpod Pytorch\nJupyterLab on port 8888, SSH on port 22.',
    },
    earned: 0,
    runtimeMin: 91_542_317,
  },
  {
    id: 'runpod-worker-vllm',
    fields: {
      name: 'Runpod vLLM worker',
      imageName: 'runpod/worker-v1-vllm:v2.7.0stable-cuda12.1.0',
      isPublic: true,
      isServerless: true,
      env: { MODEL_NAME: 'facebook/opt-125m' },
      readme: '# vLLM worker\nOpenAI-compatible serverless worker.',
    },
    earned: 0,
    runtimeMin: 12_804_551,
  },
];

/** Image of the templates seeded for config bindings: the emulator's own mock worker. */
const CONFIG_TEMPLATE_IMAGE = 'qbench/mock-worker:1';

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 10;

function newId(): string {
  const bytes = randomBytes(ID_LENGTH);
  let id = '';
  for (const b of bytes) id += ID_ALPHABET[b % ID_ALPHABET.length];
  return id;
}

function withDefaults(body: TemplateCreate): TemplateFields {
  return {
    name: body.name,
    imageName: body.imageName,
    category: body.category ?? TEMPLATE_DEFAULTS.category,
    containerDiskInGb: body.containerDiskInGb ?? TEMPLATE_DEFAULTS.containerDiskInGb,
    ...(body.containerRegistryAuthId !== undefined ? { containerRegistryAuthId: body.containerRegistryAuthId } : {}),
    dockerEntrypoint: body.dockerEntrypoint ?? [...TEMPLATE_DEFAULTS.dockerEntrypoint],
    dockerStartCmd: body.dockerStartCmd ?? [...TEMPLATE_DEFAULTS.dockerStartCmd],
    // The spec gives env and ports no default; an empty object and list keep the record's shape stable.
    env: body.env ?? {},
    isPublic: body.isPublic ?? TEMPLATE_DEFAULTS.isPublic,
    isServerless: body.isServerless ?? TEMPLATE_DEFAULTS.isServerless,
    ports: body.ports ?? [],
    readme: body.readme ?? TEMPLATE_DEFAULTS.readme,
    volumeInGb: body.volumeInGb ?? TEMPLATE_DEFAULTS.volumeInGb,
    volumeMountPath: body.volumeMountPath ?? TEMPLATE_DEFAULTS.volumeMountPath,
  };
}

/** Only the fields the client sent (the 'template-defaults-missing' fault). */
function withoutDefaults(body: TemplateCreate): TemplateFields {
  const out: TemplateFields = { name: body.name, imageName: body.imageName };
  for (const [k, v] of Object.entries(body)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}

export interface TemplateStoreOptions {
  readonly now: () => number;
  /** Endpoint -> template bindings from the emulator config, seeded on every reset. */
  readonly configBindings?: Readonly<Record<string, string>> | undefined;
  /** Tell the queue part about a seeded binding (EmulatorServices.bindEndpoint). */
  readonly bindEndpoint?: ((endpointId: string, templateId: string, version: number) => boolean) | undefined;
  readonly nameMustBeUnique: () => boolean;
  readonly applyDefaults: () => boolean;
}

export class TemplateStore {
  private readonly templates = new Map<string, StoredTemplate>();
  /** endpointId -> templateId */
  private readonly bindings = new Map<string, string>();
  private readonly releases = new Map<string, ReleaseState>();
  private runtimeMsOf: (templateId: string) => number = () => 0;

  constructor(private readonly options: TemplateStoreOptions) {
    this.reset();
  }

  reset(): void {
    this.templates.clear();
    this.bindings.clear();
    this.releases.clear();
    const now = this.options.now();
    for (const p of PROVIDER_TEMPLATES) {
      this.templates.set(p.id, {
        id: p.id,
        version: 1,
        owner: 'provider',
        createdAtMs: now,
        updatedAtMs: now,
        fields: withDefaults({ ...p.fields }),
        baseEarned: p.earned,
        baseRuntimeMs: p.runtimeMin * MINUTE_MS,
      });
    }
    this.seedConfigBindings(now);
  }

  /** A serverless template for each template id the config binds an endpoint to. */
  private seedConfigBindings(now: number): void {
    for (const [endpointId, templateId] of Object.entries(this.options.configBindings ?? {})) {
      if (!this.templates.has(templateId)) {
        this.templates.set(templateId, {
          id: templateId,
          version: 1,
          owner: 'user',
          createdAtMs: now,
          updatedAtMs: now,
          fields: withDefaults({ name: templateId, imageName: CONFIG_TEMPLATE_IMAGE, isServerless: true }),
          baseEarned: 0,
          baseRuntimeMs: 0,
        });
      }
      const t = this.templates.get(templateId);
      if (t?.fields.isServerless !== true) continue;
      this.bindings.set(endpointId, templateId);
      this.options.bindEndpoint?.(endpointId, templateId, t.version);
    }
  }

  /** The GraphQL part reports the running time of pods deployed from each template. */
  setRuntimeSource(fn: (templateId: string) => number): void {
    this.runtimeMsOf = fn;
  }

  get(id: string): StoredTemplate | undefined {
    return this.templates.get(id);
  }

  list(includeProvider: boolean): StoredTemplate[] {
    return [...this.templates.values()].filter((t) => includeProvider || t.owner === 'user');
  }

  private nameTaken(name: string, exceptId?: string): boolean {
    if (!this.options.nameMustBeUnique()) return false;
    for (const t of this.templates.values()) if (t.owner === 'user' && t.id !== exceptId && t.fields.name === name) return true;
    return false;
  }

  create(body: TemplateCreate): CreateOutcome {
    if (this.nameTaken(body.name)) return { kind: 'duplicate-name', name: body.name };
    let id = newId();
    while (this.templates.has(id)) id = newId();
    const now = this.options.now();
    const template: StoredTemplate = {
      id,
      version: 1,
      owner: 'user',
      createdAtMs: now,
      updatedAtMs: now,
      fields: this.options.applyDefaults() ? withDefaults(body) : withoutDefaults(body),
      baseEarned: 0,
      baseRuntimeMs: 0,
    };
    this.templates.set(id, template);
    return { kind: 'created', template };
  }

  update(id: string, body: TemplateUpdateBody): UpdateOutcome {
    const t = this.templates.get(id);
    if (!t) return { kind: 'not-found' };
    if (t.owner === 'provider') return { kind: 'read-only' };
    if (body.name !== undefined && this.nameTaken(body.name, id)) return { kind: 'duplicate-name', name: body.name };
    const next: TemplateFields = { ...t.fields };
    for (const [k, v] of Object.entries(body)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
    t.fields = next;
    t.version += 1;
    t.updatedAtMs = this.options.now();
    return { kind: 'updated', template: t };
  }

  delete(id: string): DeleteOutcome {
    const t = this.templates.get(id);
    if (!t) return { kind: 'not-found' };
    if (t.owner === 'provider') return { kind: 'read-only' };
    const endpointIds = this.endpointsOf(id);
    if (endpointIds.length > 0) return { kind: 'in-use', endpointIds };
    this.templates.delete(id);
    this.releases.delete(id);
    return { kind: 'deleted' };
  }

  bind(endpointId: string, templateId: string): void {
    this.bindings.set(endpointId, templateId);
  }

  endpointsOf(templateId: string): string[] {
    return [...this.bindings].filter(([, tid]) => tid === templateId).map(([eid]) => eid);
  }

  releaseStarted(templateId: string, version: number): void {
    this.releases.set(templateId, { state: 'rolling', templateId, version, startedAtMs: this.options.now() });
  }

  /** Record the end of a release unless a newer one for the same template has started since. */
  releaseEnded(templateId: string, version: number, error?: string): void {
    const current = this.releases.get(templateId);
    if (!current || current.version !== version) return;
    const finishedAtMs = this.options.now();
    this.releases.set(
      templateId,
      error === undefined
        ? { state: 'done', templateId, version, startedAtMs: current.startedAtMs, finishedAtMs }
        : { state: 'failed', templateId, version, startedAtMs: current.startedAtMs, finishedAtMs, error },
    );
  }

  release(templateId: string): ReleaseState | undefined {
    return this.releases.get(templateId);
  }

  toRecord(t: StoredTemplate): TemplateRecordOut {
    const provider = t.owner === 'provider';
    return {
      id: t.id,
      ...t.fields,
      earned: t.baseEarned,
      isProvider: provider,
      isRunpod: provider,
      runtimeInMin: Math.floor((t.baseRuntimeMs + this.runtimeMsOf(t.id)) / MINUTE_MS),
    };
  }

  info(): Record<string, unknown> {
    return {
      templates: [...this.templates.values()].map((t) => ({
        id: t.id,
        name: t.fields.name,
        version: t.version,
        isServerless: t.fields.isServerless ?? false,
        isProvider: t.owner === 'provider',
        endpoints: this.endpointsOf(t.id),
      })),
      releases: [...this.releases.values()],
    };
  }
}

const stores = new WeakMap<EmulatorServices, TemplateStore>();

/** The one template store of the emulator that `services` belongs to (REST and GraphQL share it). */
export function templateStoreFor(services: EmulatorServices): TemplateStore {
  let store = stores.get(services);
  if (!store) {
    store = new TemplateStore({
      now: () => services.clock.now(),
      nameMustBeUnique: () => !services.faults.has('template-name-not-unique'),
      applyDefaults: () => !services.faults.has('template-defaults-missing'),
      configBindings: services.endpointTemplates,
      bindEndpoint: services.bindEndpoint ? (e, t, v) => services.bindEndpoint?.(e, t, v) ?? false : undefined,
    });
    stores.set(services, store);
  }
  return store;
}
