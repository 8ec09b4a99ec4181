// How the REST template interface and the GraphQL pod interface mount on the one emulator
// server beside the queue endpoint. The queue emulator (server) owns the HTTP listener and
// asks each sub-service in turn whether a request is its own. The list of mounted services
// is sub-service-list.ts (kept apart so that the services can import these types).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from './clock.js';
import type { FaultSet } from './faults.js';

export interface SubService {
  readonly name: string;
  /** Handle the request when its path belongs to this service; resolve false to pass it on. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** Extra facts for GET /_qbench/info (e.g. template versions, stock). */
  info?(): Record<string, unknown>;
  /** Reset to the initial state (POST /_qbench/reset). */
  reset?(): void;
  close?(): Promise<void>;
}

/** What the queue emulator offers the sub-services. */
export interface EmulatorServices {
  readonly clock: Clock;
  /** The accepted API key (raw or `Bearer ` form on the wire). */
  readonly apiKey: string;
  readonly faults: FaultSet;
  /**
   * Rolling release (§4.2): replace the workers of every endpoint bound to `templateId` one
   * at a time with workers of `version`; jobs in progress finish on their old worker and
   * nothing queued is lost. Resolves when every bound endpoint has rolled.
   */
  rollingRelease(templateId: string, version: number): Promise<void>;
  /**
   * Bind a queue endpoint to a serverless template at its current `version` (the REST part
   * calls it for `PATCH /v1/endpoints/{endpointId}` with `{templateId}`): from then on the
   * endpoint's workers carry that template version, and `rollingRelease(templateId, ...)`
   * rolls it. Returns false when the endpoint id is unknown. Optional: without it the REST
   * part answers that binding is unsupported.
   */
  bindEndpoint?(endpointId: string, templateId: string, version: number): boolean;
  /**
   * Endpoint id -> template id bindings from the emulator config (`endpointTemplates`). The
   * REST part creates a serverless template under each such id that it does not hold yet
   * (version 1), so that updating it rolls those endpoints. Optional.
   */
  readonly endpointTemplates?: Readonly<Record<string, string>>;
}

export type SubServiceFactory = (services: EmulatorServices) => SubService;
