// The grammars of the text qbench reads at every border, written once: an endpoint id (it
// travels in the URL path `/v2/{endpoint_id}`, so the config file, the --endpoint flags and the
// emulator accept the same ids) and a duration ("500ms", "30s", "1m30s", in flags and the config).
import { z } from 'zod';

/** Longest endpoint id anything of qbench accepts. */
export const ENDPOINT_ID_MAX_CHARS = 64;
const ENDPOINT_ID_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9_-]{0,${ENDPOINT_ID_MAX_CHARS - 1}}$`);
export const ENDPOINT_ID_GRAMMAR = `1-${ENDPOINT_ID_MAX_CHARS} letters, digits, "-" and "_", starting with a letter or digit`;

export function isEndpointId(text: string): boolean {
  return ENDPOINT_ID_PATTERN.test(text);
}

/** An endpoint id; the message says what one is. */
export const EndpointId = z.string().regex(ENDPOINT_ID_PATTERN, { error: `must be an endpoint id: ${ENDPOINT_ID_GRAMMAR}` });

const UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
export const DURATION_GRAMMAR = 'a duration such as 500ms, 30s, 2m, 1h, 1m30s';

/** "90s", "2m", "500ms", "1h", "1m30s" -> ms; undefined when malformed. */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return Math.round(parts.reduce((a, p) => a + Number(p[1]) * (UNITS_MS[p[2] ?? 's'] ?? 0), 0));
}

/** A duration as written (kept as text, e.g. in the config file). */
export const DurationText = z.string().refine((t) => parseDurationMs(t) !== undefined, { error: `must be ${DURATION_GRAMMAR}` });

/** A duration read to milliseconds. */
export const DurationMs = DurationText.transform((t) => parseDurationMs(t) ?? 0);
