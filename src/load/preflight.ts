// Before a scenario sends its load: one request to the endpoint's /health (§4.1), so a target
// that answers nothing ends the run within seconds as "target unreachable" (exit 5) instead of
// a scenario full of network errors. Any HTTP answer, 401 and 404 included, means reachable:
// what the answer says is for the scenario to judge.
import { boundedRequest, retryResets } from '../client/bounded-request.js';
import { QbenchError, redactSecrets } from '../errors.js';
import type { LoadTarget } from './context.js';
import { endpointBasePath } from './http.js';

/** How long the preflight waits for a connection and an answer, real ms. */
export const PREFLIGHT_TIMEOUT_MS = 5000;

/** Resolves when the target gave an HTTP answer; throws QB_ERR_UNREACHABLE (URL and error) when not. */
export async function preflight(target: LoadTarget, signal?: AbortSignal): Promise<void> {
  const url = `${target.queueUrl}${endpointBasePath(target)}/health`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.apiKey) headers['authorization'] = `Bearer ${target.apiKey}`;
  const limit = AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS);
  const bound = signal ? AbortSignal.any([signal, limit]) : limit;
  try {
    // One connection the path reset is not a dead target: asked again on a fresh one, within the same limit.
    await retryResets(() => boundedRequest(url, { headers, timeoutMs: PREFLIGHT_TIMEOUT_MS, signal: bound, read: 'discard' }), { attempts: PREFLIGHT_ATTEMPTS, pauseMs: 100, signal: bound });
  } catch (e) {
    unreachable(e, url, limit, signal);
  }
}

/** Attempts of the preflight request when the path resets the connection. */
const PREFLIGHT_ATTEMPTS = 4;

function unreachable(e: unknown, url: string, limit: AbortSignal, signal: AbortSignal | undefined): never {
  if (signal?.aborted) throw new QbenchError('QB_ERR_ABORTED', 'interrupted during the preflight request');
  const code = (e as { code?: unknown }).code;
  const message = e instanceof Error ? e.message : String(e);
  const why = limit.aborted ? `no answer within ${PREFLIGHT_TIMEOUT_MS} ms` : typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message;
  throw new QbenchError('QB_ERR_UNREACHABLE', `target unreachable: GET ${url}: ${redactSecrets(why)}`, { url });
}
