// Typed client of the REST template interface (§4.2, §2.5) with the WIRE-COMPAT calls of the
// public API: list, get, PATCH update and DELETE beside create and POST .../update.
// Auth per §5: `Authorization: Bearer <key>`.
import { z } from 'zod';
import { API_VERSIONS, TemplateCreate, TemplateRecord, TemplateUpdate } from '../spec/index.js';
import { HttpCore, encodePathSegment, type CallSpec, type HttpCoreOptions, type RequestOptions } from './http-core.js';

export interface TemplateClientOptions extends Omit<HttpCoreOptions, 'auth'> {
  /** `{rest_url}`: paths become `{rest_url}/v1/templates...`. */
  readonly baseUrl: string;
  readonly apiKey: string;
}

export type TemplateCreateInput = z.input<typeof TemplateCreate>;
export type TemplateUpdateInput = z.input<typeof TemplateUpdate>;

export interface TemplateUpdateOptions extends RequestOptions {
  /** `post`: POST /v1/templates/{id}/update (§4.2); `patch`: PATCH /v1/templates/{id} (WIRE-COMPAT). Default post. */
  readonly via?: 'post' | 'patch';
}

const TemplateList = z.array(TemplateRecord);
const TemplateId = z.string({ error: 'templateId must be a string' }).min(1, { error: 'templateId must not be empty' });

export class TemplateClient {
  readonly core: HttpCore;
  private readonly root = `/${API_VERSIONS.rest}/templates`;

  constructor(options: TemplateClientOptions) {
    const { apiKey, ...rest } = options;
    this.core = new HttpCore({ ...rest, auth: { kind: 'header', apiKey, form: 'bearer' } });
  }

  private idPath(id: string, method: CallSpec['method']): string {
    this.core.checkRequest({ method, path: this.root }, TemplateId, id, 'templateId');
    return `${this.root}/${encodePathSegment(id)}`;
  }

  /** POST /v1/templates: the stored record, defaults applied by the service. */
  async create(body: TemplateCreateInput, opts?: RequestOptions): Promise<TemplateRecord> {
    const spec: CallSpec = { method: 'POST', path: this.root, json: body };
    this.core.checkRequest(spec, TemplateCreate, body, 'template create body');
    return this.core.call(spec, TemplateRecord, 'TemplateRecord', opts);
  }

  /** Update a template (a rolling release for its endpoints); create-only fields are refused. */
  async update(id: string, body: TemplateUpdateInput, opts: TemplateUpdateOptions = {}): Promise<TemplateRecord> {
    const base = this.idPath(id, 'POST');
    const spec: CallSpec = opts.via === 'patch' ? { method: 'PATCH', path: base, json: body } : { method: 'POST', path: `${base}/update`, json: body };
    this.core.checkRequest(spec, TemplateUpdate, body, 'template update body');
    return this.core.call(spec, TemplateRecord, 'TemplateRecord', opts);
  }

  /** GET /v1/templates/{id}. */
  async get(id: string, opts?: RequestOptions): Promise<TemplateRecord> {
    return this.core.call({ method: 'GET', path: this.idPath(id, 'GET') }, TemplateRecord, 'TemplateRecord', opts);
  }

  /** GET /v1/templates. */
  async list(opts?: RequestOptions): Promise<TemplateRecord[]> {
    return this.core.call({ method: 'GET', path: this.root }, TemplateList, 'TemplateRecord[]', opts);
  }

  /** DELETE /v1/templates/{id}: 204 (any 2xx is accepted; a body, if any, is ignored). */
  async delete(id: string, opts?: RequestOptions): Promise<void> {
    await this.core.send({ method: 'DELETE', path: this.idPath(id, 'DELETE') }, opts);
  }

  close(): Promise<void> {
    return this.core.close();
  }
}
