// The reader of GET /_qbench/counters for one endpoint: its jobs ended so far (the §2.4 health
// counters) and its billing meter (one schema: EndpointBillingCounters). A load run on an
// emulator reads it before and after to price the run.
import { z } from 'zod';
import { EndpointBillingCounters } from '../spec/index.js';
import { INFO_TIMEOUT_MS, undiciFetcher } from './emulator-info.js';

const jobCount = z.number().int().nonnegative();

/** What a reader takes of GET /_qbench/counters for one endpoint. */
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

/** GET /_qbench/counters and pick `endpointId`'s jobs and billing; undefined when not an emulator, the route is hidden or no answer came. */
export async function readEndpointCounters(queueUrl: string, endpointId: string, apiKey?: string): Promise<EndpointCountersFacts | undefined> {
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
    const res = await undiciFetcher(`${queueUrl.replace(/\/+$/, '')}/_qbench/counters`, headers, INFO_TIMEOUT_MS);
    return res.status === 200 ? endpointCountersFacts(JSON.parse(res.text) as unknown, endpointId) : undefined;
  } catch {
    return undefined;
  }
}
