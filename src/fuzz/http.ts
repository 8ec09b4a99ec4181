// Sends generated requests byte for byte (malformed JSON and oversized bodies included, which
// the typed clients refuse to build), through the rate budget, with the shared 429 backoff of
// src/client, and records each exchange (secrets redacted, bodies truncated) for the report.
import { Agent } from 'undici';
import { redactSecrets, registerSecret } from '../errors.js';
import { HTTP_STATUS } from '../spec/index.js';
import { resolveBackoff, withBackoff, type BackoffOptions } from '../client/backoff.js';
import { EXCHANGE_BODY_LIMIT_CHARS, recordBody, recordHeaders } from '../client/exchange-record.js';
import { parseAnswerJson, recordResponse, scrubKey, sendExchange } from '../client/exchange-http.js';
import { answerBreach, type AnswerBreach, type AnswerInterface } from '../client/answer-contract.js';
import type { HttpExchange } from '../result/model.js';
import { bodyBytes, describeBody, encodeBody, type CaseBody } from './case-body.js';
import { API_KEY_ENV, curlLine, type AuthPlacement } from './curl.js';
import type { BudgetOperation, RateBudget } from './rate-budget.js';

/** Bodies and answers kept in a report are cut to this many characters (the shared exchange record's limit). */
export const EXCHANGE_BODY_CHARS = EXCHANGE_BODY_LIMIT_CHARS;

export interface FuzzRequest {
  readonly operation: BudgetOperation;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Full URL, without any key. */
  readonly url: string;
  readonly auth: AuthPlacement;
  readonly body?: CaseBody | undefined;
}

export interface FuzzAnswer {
  /** null: no answer (connection refused or closed mid-request). */
  readonly status: number | null;
  readonly text: string;
  /** The parsed JSON answer; undefined when the answer is not JSON. */
  readonly json: unknown;
  readonly error?: string;
  readonly exchange: HttpExchange;
  readonly curl: string;
  /** The contract this answer breaks (src/client/answer-contract.ts), whatever the case expected. */
  readonly breach?: AnswerBreach;
}

export interface FuzzHttpOptions {
  readonly apiKey: string;
  /** The environment variable curl lines name for the key (default QBENCH_API_KEY). */
  readonly apiKeyEnv?: string | undefined;
  readonly budget: RateBudget;
  readonly signal?: AbortSignal | undefined;
  /** Per-request limit, real ms. */
  readonly timeoutMs?: number;
  /** 429 policy (the budget should make it unused). */
  readonly backoff?: Partial<BackoffOptions>;
}

export class FuzzHttp {
  private readonly agent = new Agent({ keepAliveTimeout: 4_000, connections: 8 });
  private readonly backoff: BackoffOptions;
  /** Requests sent, and 429s met despite the budget (reported: they mean the budget is off). */
  sent = 0;
  rateLimited = 0;
  /** Requests that got an HTTP answer (any status), and the last network error of one that got none. */
  answered = 0;
  lastError: string | undefined;
  /** Answers that broke the contract, oldest first (the runner fails the case that read one). */
  readonly breaches: FuzzAnswer[] = [];

  constructor(private readonly options: FuzzHttpOptions) {
    registerSecret(options.apiKey);
    this.backoff = resolveBackoff(options.backoff ?? {});
  }

  /** Send one request; `signal` (default: the options' one) aborts it and any wait for budget. */
  async send(req: FuzzRequest, signal: AbortSignal | undefined = this.options.signal): Promise<FuzzAnswer> {
    const payload = req.body === undefined ? undefined : encodeBody(req.body);
    const wireUrl = req.auth === 'query-api-key' ? `${req.url}${req.url.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(this.options.apiKey)}` : req.url;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.auth === 'header-bearer') headers['authorization'] = `Bearer ${this.options.apiKey}`;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const shownRequest: HttpExchange['request'] = {
      method: req.method,
      url: redactSecrets(req.url),
      headers: recordHeaders(headers),
      ...(req.body !== undefined ? { body: recordBody(describeBody(req.body)) } : {}),
      bodyBytes: req.body === undefined ? 0 : bodyBytes(req.body),
    };
    // The line names the key only as the --api-key-env variable; the key itself is scrubbed should a body quote it.
    const curl = scrubKey(curlLine({ method: req.method, url: req.url, auth: req.auth, body: req.body }, this.options.apiKeyEnv ?? API_KEY_ENV), this.options.apiKey);
    const started = performance.now();
    try {
      const result = await withBackoff(
        async () => {
          await this.options.budget.take(req.operation, signal);
          this.sent += 1;
          const answer = await sendExchange({
            url: wireUrl,
            method: req.method,
            headers,
            body: payload,
            dispatcher: this.agent,
            // A server may cut an oversized body off and close the socket: never reuse one that carried a big body.
            reset: req.body?.kind === 'padded',
            headersTimeoutMs: this.options.timeoutMs ?? 30_000,
            bodyTimeoutMs: this.options.timeoutMs ?? 30_000,
            signal,
          });
          if (answer.status === HTTP_STATUS.tooManyRequests) this.rateLimited += 1;
          return { status: answer.status, retryAfter: answer.rawHeaders['retry-after'], value: answer };
        },
        this.backoff,
        signal ? { signal } : {},
      );
      const { status, value } = result.outcome;
      this.answered += 1;
      const json = parseAnswerJson(value.text);
      const iface: AnswerInterface = req.operation === 'templates' ? 'rest' : req.operation === 'graphql' ? 'graphql' : 'queue';
      // Only a GraphQL answer is judged against its request (the query's selection): no other body is parsed.
      const sentJson = iface === 'graphql' && typeof payload === 'string' ? parseAnswerJson(payload) : undefined;
      const breach = answerBreach({ iface, method: req.method, path: new URL(req.url).pathname, ...(sentJson !== undefined ? { json: sentJson } : {}) }, { status, text: value.text, json });
      const answer: FuzzAnswer = {
        status,
        text: value.text,
        json,
        curl,
        // The recorded size is that of the decoded text, as the fuzzer has always reported it.
        exchange: { request: shownRequest, response: recordResponse(value, Buffer.byteLength(value.text)) },
        ...(breach !== null ? { breach } : {}),
      };
      if (breach !== null) this.breaches.push(answer);
      return answer;
    } catch (e) {
      if (signal?.aborted) throw e;
      const msg = redactSecrets(e instanceof Error ? `${e.name}: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ''}` : String(e));
      this.lastError = msg;
      return { status: null, text: '', json: undefined, error: msg, curl, exchange: { request: shownRequest, error: `${msg} after ${Math.round(performance.now() - started)} ms` } };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
