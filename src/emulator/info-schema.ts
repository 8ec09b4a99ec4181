// The readers' contract with GET /_qbench/info: the fields a client outside the emulator's
// process reads to adapt to it (time scale, rate-window scaling, endpoints, faults in force),
// picked from the one schema of the document (src/spec/schemas/emulator-info.ts) that
// info-routes.ts `infoDocument` is typed by. Every other field passes through.
import { z } from 'zod';
import { EmulatorInfoDocument, EndpointBillingCounters } from '../spec/index.js';

export const EMULATOR_INFO_NAME = 'qbench-emulator';

/** The facts readers adapt to, picked from the one document schema; every other field passes through. */
export const EmulatorInfoFacts = EmulatorInfoDocument.pick({ name: true, version: true, timeScale: true, scaleRateWindows: true, endpoints: true, faults: true }).loose();
export type EmulatorInfoFacts = z.infer<typeof EmulatorInfoFacts>;

const jobCount = z.number().int().nonnegative();

/**
 * What a reader takes of GET /_qbench/counters for one endpoint: its jobs ended so far (the
 * §2.4 health counters) and its billing meter (one schema: EndpointBillingCounters).
 */
export const EndpointCountersFacts = z
  .object({
    health: z.object({ jobs: z.object({ completed: jobCount, failed: jobCount }).loose() }).loose(),
    billing: EndpointBillingCounters,
  })
  .loose();
export type EndpointCountersFacts = z.infer<typeof EndpointCountersFacts>;

/** The facts of `endpointId` in a /_qbench/counters answer; undefined when absent or of another shape. */
export function endpointCountersFacts(body: unknown, endpointId: string): EndpointCountersFacts | undefined {
  const eps = (body as { endpoints?: Record<string, unknown> } | null)?.endpoints;
  const r = EndpointCountersFacts.safeParse(eps?.[endpointId]);
  return r.success ? r.data : undefined;
}

/** Does this JSON body claim to be the emulator's info document (whatever its shape)? */
export function claimsEmulatorInfo(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { name?: unknown }).name === EMULATOR_INFO_NAME;
}
