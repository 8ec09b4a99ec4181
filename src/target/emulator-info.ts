// The one reader of GET /_qbench/info, the emulator's document about itself (one schema:
// src/spec/schemas/emulator-info.ts). It decides what the answer means: the document parses
// (an emulator), a 404 or any answer that is not the emulator's (not an emulator), no answer
// (unreachable: each command keeps its own reaction), or a document that calls itself the
// emulator's and does not parse (an exit 2 error naming the fields, never a silent real time).
import { boundedRequest, retryResets } from '../client/bounded-request.js';
import { configError } from '../errors.js';
import { EmulatorInfoDocument } from '../spec/index.js';

/** The route, below the queue URL (its prefix included). */
export const EMULATOR_INFO_PATH = '/_qbench/info';
/** The whole info request, connecting included, real ms: an unreachable host costs no more. */
export const INFO_TIMEOUT_MS = 5000;
/** Attempts of the info request when the path resets the connection. */
const INFO_ATTEMPTS = 4;
const RESET_PAUSE_MS = 100;

const EMULATOR_NAME: string = EmulatorInfoDocument.shape.name.value;

/** One GET and its answer; rejects when no answer came (refused, reset, timed out). */
export type InfoFetcher = (url: string, headers: Readonly<Record<string, string>>, timeoutMs: number) => Promise<{ readonly status: number; readonly text: string }>;

export type InfoReading =
  | { readonly kind: 'emulator'; readonly info: EmulatorInfoDocument }
  /** An answer that is not the emulator's document: a real deployment, or a proxy hiding /_qbench. */
  | { readonly kind: 'not-emulator'; readonly status: number }
  | { readonly kind: 'unreachable'; readonly url: string; readonly error: string };

export interface ReadInfoOptions {
  /** Sent as `Bearer <key>` when given (an emulator may require it). */
  readonly apiKey?: string | undefined;
  readonly timeoutMs?: number;
  /** The HTTP GET; undici's `request` unless a test brings its own. */
  readonly fetcher?: InfoFetcher;
}

/** One GET over undici, bounded in whole by `timeoutMs` (connecting included). */
export const undiciFetcher: InfoFetcher = (url, headers, timeoutMs) => boundedRequest(url, { headers, timeoutMs });

function claimsToBeTheEmulator(json: unknown): boolean {
  return typeof json === 'object' && json !== null && (json as { name?: unknown }).name === EMULATOR_NAME;
}

/** Ask `queueUrl` for its info document and decide what the answer means. */
export async function readEmulatorInfo(queueUrl: string, o: ReadInfoOptions = {}): Promise<InfoReading> {
  const url = `${queueUrl.replace(/\/+$/, '')}${EMULATOR_INFO_PATH}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (o.apiKey) headers['authorization'] = `Bearer ${o.apiKey}`;
  const fetcher = o.fetcher ?? undiciFetcher;
  let answer: { readonly status: number; readonly text: string };
  try {
    // A connection the path reset is no verdict on the target: asked again on a fresh one. A refused
    // connect, an unknown host or no answer in time is a dead target: at once.
    answer = await retryResets((remainingMs) => fetcher(url, headers, remainingMs), { attempts: INFO_ATTEMPTS, pauseMs: RESET_PAUSE_MS, timeoutMs: o.timeoutMs ?? INFO_TIMEOUT_MS });
  } catch (e) {
    return { kind: 'unreachable', url, error: e instanceof Error ? e.message : String(e) };
  }
  if (answer.status !== 200) return { kind: 'not-emulator', status: answer.status };
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    return { kind: 'not-emulator', status: answer.status };
  }
  if (!claimsToBeTheEmulator(json)) return { kind: 'not-emulator', status: answer.status };
  const parsed = EmulatorInfoDocument.safeParse(json);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(document)'}: ${i.message}`);
    throw configError(`GET ${url} answered an emulator info document this qbench cannot read (a different qbench version?): ${fields.join('; ')}`, { fields: parsed.error.issues.map((i) => i.path.join('.')) });
  }
  return { kind: 'emulator', info: parsed.data };
}
