// The live metrics endpoints a load run streams to (`--metrics kind=URL`, repeatable), checked
// before anything runs; the exporter itself (src/metrics/live.ts) loads only when one is named.
import { usageError } from '../errors.js';
import { redactUrl } from '../result/machine.js';

export const METRICS_KINDS = ['prometheus', 'otlp'] as const;
export interface MetricsEndpoint {
  readonly kind: (typeof METRICS_KINDS)[number];
  readonly url: string;
}

/** `--metrics kind=URL`, repeatable. */
export function parseMetricsFlags(values: readonly string[]): MetricsEndpoint[] {
  return values.map((v) => {
    const eq = v.indexOf('=');
    const kind = v.slice(0, eq);
    const url = v.slice(eq + 1);
    if (eq <= 0 || !(METRICS_KINDS as readonly string[]).includes(kind)) throw usageError(`--metrics "${redactUrl(v)}": write prometheus=<remote-write URL> or otlp=<OTLP/HTTP metrics URL>`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw usageError(`--metrics ${kind}=: "${redactUrl(url)}" is not a URL (e.g. http://127.0.0.1:9090/api/v1/write)`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw usageError(`--metrics ${kind}=: an http or https URL, got ${parsed.protocol}`);
    return { kind: kind as MetricsEndpoint['kind'], url };
  });
}

