// No file outside src/spec retypes a number of src/spec/limits.ts: every one is imported.
// The scan reads the TypeScript syntax tree of src/** outside src/spec, so strings and
// comments never count, and folds constant products such as `7 * 24 * 60 * 60 * 1000`.
// Distinctive values (ms values over one minute other than a whole hour or day, the binary
// payload sizes) count anywhere; values that are also everyday numbers (1000, 100, 2000,
// 10 s, one minute, one day, 10,000,000...) count only on a line that speaks of what the
// spec uses them for.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  EXECUTION_TIMEOUT_MS,
  HOUR_MS,
  RATE_LIMITS,
  RATE_WINDOW_MS,
  RETENTION_MS,
  RUN_PAYLOAD,
  RUNSYNC_PAYLOAD,
  RUNSYNC_WAIT_MS,
  STREAM_CHUNK,
  TTL_MS,
  WEBHOOK,
  WORKER_PROTOCOL,
  type Bounds,
} from '../../../src/spec/index.js';

interface Rule {
  readonly value: number;
  readonly what: string;
  /** null: flagged anywhere; otherwise only on lines matching. */
  readonly context: RegExp | null;
}

const rules = new Map<number, Rule>();
function add(value: number, what: string, context: RegExp | null): void {
  const prev = rules.get(value);
  // A value that is distinctive in any role is flagged anywhere.
  if (!prev || (prev.context !== null && context === null)) rules.set(value, { value, what, context });
}

/** Above one minute a ms value is distinctive; one minute itself is everyday (MINUTE_MS). */
const DISTINCTIVE_MS = 60_000 + 1;
/** Whole units of time that are everyday too (a 24 h cap on a fuzz run is not the ttl default). */
const EVERYDAY_MS: ReadonlySet<number> = new Set([DAY_MS, HOUR_MS]);
const bounds: [string, Bounds][] = [['executionTimeout', EXECUTION_TIMEOUT_MS], ['ttl', TTL_MS], ['wait', RUNSYNC_WAIT_MS]];
for (const [name, b] of bounds) {
  for (const [k, v] of Object.entries({ defaultValue: b.defaultValue, min: b.min, max: b.max })) {
    const everyday = v < DISTINCTIVE_MS || EVERYDAY_MS.has(v);
    add(v, `${name}.${k} (${b.section})`, everyday ? new RegExp(`\\b${name}(Ms)?\\b\\s*[:=<>!]`, 'i') : null);
  }
}
for (const [k, v] of Object.entries(RETENTION_MS)) if (typeof v === 'number') add(v, `retention.${k} (§2.2)`, v >= DISTINCTIVE_MS ? null : /retention|retain|runsync/i);
for (const size of [RUN_PAYLOAD, RUNSYNC_PAYLOAD, STREAM_CHUNK]) {
  // Round decimal sizes are also counts (10,000,000 requests) and ns-per-ms: flag them where bytes are meant.
  add(size.decimalBytes, `${size.megabytes} MB decimal (${size.section})`, /byte|chunk|payload|\bmb\b|size|body/i);
  add(size.binaryBytes, `${size.megabytes} MB binary (${size.section})`, null);
}
add(WEBHOOK.retryDelayMs, 'webhook retry spacing (§6)', /webhook/i);
add(RATE_WINDOW_MS, 'rate window (§8)', /window|rate/i);
add(WORKER_PROTOCOL.workerHttpTimeoutMs, 'worker HTTP timeout (WIRE-COMPAT)', null);
for (const rule of Object.values(RATE_LIMITS)) {
  const rateCtx = /requestsPer|per.?window|concurren|rate.?limit/i;
  if (rule.requestsPerWindow >= 20) add(rule.requestsPerWindow, `${rule.path} rate (§8)`, rateCtx);
  if (rule.concurrency !== null && rule.concurrency >= 20) add(rule.concurrency, `${rule.path} concurrency (§8)`, rateCtx);
}

/**
 * Values that equal a spec number by coincidence, each with the reason it is not a repeat.
 * Keyed `file:value`; a new occurrence anywhere else still fails.
 */
const COINCIDENCES: Readonly<Record<string, string>> = {
  'src/emulator/json-io.ts:1000000': "the emulator's own REST/GraphQL body cap; the spec states none",
  'src/emulator/queue/handlers/llm.ts:600000': 'upper bound of the ttft_ms handler parameter, not the execution timeout',
  'src/conformance/runner.ts:90000': "the runner's real-time budget per check, not a service limit",
};

/** Repeats known to be real and left for later, file:value with the reason; remove each when fixed. */
const KNOWN_REPEATS: Readonly<Record<string, string>> = {
};

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly value: number;
  readonly what: string;
  readonly text: string;
}

/** Constant value of a numeric literal or a product of them; undefined otherwise. */
function constantOf(node: ts.Node): number | undefined {
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isParenthesizedExpression(node)) return constantOf(node.expression);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.AsteriskToken) {
    const l = constantOf(node.left);
    const r = constantOf(node.right);
    return l !== undefined && r !== undefined ? l * r : undefined;
  }
  return undefined;
}

export function scanSource(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const lines = source.split('\n');
  const out: Finding[] = [];
  const visit = (node: ts.Node): void => {
    const value = ts.isNumericLiteral(node) || ts.isBinaryExpression(node) ? constantOf(node) : undefined;
    if (value !== undefined) {
      const rule = rules.get(value);
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const text = lines[line] ?? '';
      if (rule && (rule.context === null || rule.context.test(text))) {
        out.push({ file, line: line + 1, value, what: rule.what, text: text.trim() });
        return; // one finding per expression, not one per factor as well
      }
      if (ts.isBinaryExpression(node)) return; // a folded product is judged as a whole
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

describe('no spec literal outside src/spec', () => {
  it('the scanner flags retyped limits and leaves everyday numbers alone', () => {
    const src = [
      "const a = 600_000;",
      "const b = 7 * 24 * 60 * 60 * 1000;",
      "const c = { maxBytes: 1_000_000 };",
      "const nsPerMs = 1_000_000;",
      "const d = 'wait 1000..300000';",
      "// retention is 1800000 ms",
      "const rateLimit = 2000;",
      "const loops = 2000;",
      "const e = 10 * 1024 * 1024;",
      "const f = 90_000;",
      "const perMinute = 60_000;",
      "const maxRequests = 10_000_000;",
      "const pct = (a / b) * 100; // at the target rate",
      "const g = { requestsPerWindow: 100 };",
      "const waitMs = 1000;",
      "const maxRunMs = 24 * 3_600_000;",
      "const ttl = 86_400_000;",
    ].join('\n');
    const found = scanSource('fake.ts', src).map((f) => [f.line, f.value]);
    expect(found).toEqual([[1, 600000], [2, 604800000], [3, 1000000], [7, 2000], [9, 10485760], [10, 90000], [14, 100], [15, 1000], [17, 86400000]]);
  });

  it('src/** outside src/spec repeats none of them', () => {
    const root = new URL('../../../', import.meta.url).pathname;
    const srcDir = join(root, 'src');
    const files = tsFiles(srcDir).filter((f) => !relative(srcDir, f).startsWith('spec'));
    expect(files.length).toBeGreaterThan(5);
    const findings = files
      .flatMap((f) => scanSource(relative(root, f), readFileSync(f, 'utf8')))
      .filter((f) => COINCIDENCES[`${f.file}:${f.value}`] === undefined && KNOWN_REPEATS[`${f.file}:${f.value}`] === undefined);
    expect(findings.map((f) => `${f.file}:${f.line} ${f.value} is ${f.what}: ${f.text}`)).toEqual([]);
  });
});
