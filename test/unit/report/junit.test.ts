// JUnit XML: valid against the common JUnit schema (xmllint with test/unit/report/fixtures/junit.xsd
// where xmllint is installed; a structural check with a small parser everywhere), every check,
// threshold, finding and fuzz property a test case named by clause or metric, failures with
// message and reproduction, and no secrets.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret } from '../../../src/errors.js';
import { compareResults } from '../../../src/report/compare.js';
import { renderComparisonJunit, renderJunit } from '../../../src/report/render/junit.js';
import { sampleResult } from './sample-result.js';

const XSD = fileURLToPath(new URL('./fixtures/junit.xsd', import.meta.url));
const XMLLINT = ['/usr/bin/xmllint', '/usr/local/bin/xmllint'].find((p) => existsSync(p));
if (!XMLLINT) console.warn('junit schema validation with xmllint skipped: install libxml2-utils (the structural check still runs)');

interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#10;/g, '\n').replace(/&#13;/g, '\r').replace(/&#9;/g, '\t').replace(/&amp;/g, '&');

/** A small strict XML parser: elements, attributes, text; throws on anything malformed. */
function parseXml(xml: string): XmlNode {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const re = /<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const root: XmlNode = { name: '#root', attrs: {}, children: [], text: '' };
  const stack: XmlNode[] = [root];
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < body.length && (m = re.exec(body)) !== null) {
    pos = re.lastIndex;
    const top = stack[stack.length - 1]!;
    if (m[1]) {
      if (top.name !== m[1]) throw new Error(`</${m[1]}> closes <${top.name}>`);
      stack.pop();
    } else if (m[2]) {
      const attrs: Record<string, string> = {};
      for (const a of (m[3] ?? '').matchAll(/([\w:.-]+)="([^"]*)"/g)) {
        if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        attrs[a[1]!] = unescape(a[2]!);
      }
      const node: XmlNode = { name: m[2], attrs, children: [], text: '' };
      top.children.push(node);
      if (m[4] !== '/') stack.push(node);
    } else if (m[5]) {
      if (/&(?!(amp|lt|gt|quot|#\d+);)/.test(m[5])) throw new Error(`bare & in text: ${m[5].slice(0, 40)}`);
      top.text += unescape(m[5]);
    }
  }
  if (pos !== body.length) throw new Error(`unparsed XML at offset ${pos}: ${body.slice(pos, pos + 40)}`);
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  const top = root.children.filter((c) => c.name !== '#text');
  if (top.length !== 1) throw new Error('more than one root element');
  return top[0]!;
}

/** The structure the Ant/Jenkins JUnit schema requires (mirrors fixtures/junit.xsd). */
function checkStructure(root: XmlNode): void {
  expect(root.name).toBe('testsuites');
  expect(Object.keys(root.attrs)).toEqual([]);
  root.children.forEach((suite, i) => {
    expect(suite.name).toBe('testsuite');
    for (const a of ['name', 'package', 'id', 'timestamp', 'hostname', 'tests', 'failures', 'errors', 'time']) expect(suite.attrs, `testsuite ${i} @${a}`).toHaveProperty(a);
    expect(suite.attrs['id']).toBe(String(i));
    expect(suite.attrs['timestamp']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const names = suite.children.map((c) => c.name);
    expect(names[0]).toBe('properties');
    expect(names.slice(-2)).toEqual(['system-out', 'system-err']);
    const cases = suite.children.filter((c) => c.name === 'testcase');
    expect(names.slice(1, -2).every((n) => n === 'testcase')).toBe(true);
    expect(Number(suite.attrs['tests'])).toBe(cases.length);
    const count = (k: string) => cases.filter((c) => c.children.some((x) => x.name === k)).length;
    expect(Number(suite.attrs['failures'])).toBe(count('failure'));
    expect(Number(suite.attrs['errors'])).toBe(count('error'));
    expect(Number(suite.attrs['skipped'])).toBe(count('skipped'));
    for (const c of cases) {
      expect(c.attrs['name']?.trim()).toBeTruthy();
      expect(c.attrs['classname']?.trim()).toBeTruthy();
      expect(c.attrs['time']).toMatch(/^\d+(\.\d+)?$/);
      expect(c.children.length).toBeLessThanOrEqual(1);
      for (const p of c.children) {
        expect(['skipped', 'failure', 'error']).toContain(p.name);
        if (p.name !== 'skipped') expect(p.attrs['type']).toBeTruthy();
      }
    }
  });
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-junit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function xmllint(xml: string, name: string): Promise<void> {
  if (!XMLLINT) return;
  const file = path.join(dir, name);
  await writeFile(file, xml);
  await promisify(execFile)(XMLLINT, ['--noout', '--schema', XSD, file]);
}

describe('JUnit renderer', () => {
  const secret = 'sk-live-SECRET-123456';
  registerSecret(secret);
  const r = sampleResult({ withConformanceFailure: true, withFuzzFailure: true, samples: 300 });
  // hostile content: control characters, markup and a key in a response body
  const failing = r.conformance!.checks.find((c) => c.verdict.status === 'fail')!;
  if (failing.verdict.status === 'fail') failing.verdict.exchanges[0]!.response!.body = `<b>&"\u0001\u0007 ${secret}`;
  r.load!.scenarios[0]!.thresholds.push({ metric: 'run.latency', expression: 'p(99.9)<1', observed: 250.5, passed: false, abortOnFail: true });
  r.load!.scenarios[1]!.validity.valid = false;
  r.load!.scenarios[1]!.validity.reasons = ['event loop blocked'];
  const xml = renderJunit(r);

  it('validates against the JUnit schema and its structure', async () => {
    await xmllint(xml, 'result.xml');
    checkStructure(parseXml(xml));
  });

  it('has a test case per check, threshold, finding, validity and fuzz property, named by clause or metric', () => {
    const root = parseXml(xml);
    const cases = root.children.flatMap((s) => s.children.filter((c) => c.name === 'testcase'));
    const names = cases.map((c) => c.attrs['name']!);
    for (const c of r.conformance!.checks) expect(names).toContain(`${c.clause.section} ${c.id}: ${c.title}`);
    for (const s of r.load!.scenarios) for (const t of s.thresholds) expect(names).toContain(`threshold ${t.metric} ${t.expression}`);
    expect(names).toContain('§8 accepted per 10 s window');
    for (const p of r.fuzz!.properties) expect(names).toContain(`${p.clause.section} ${p.name}`);
    expect(names.filter((n) => n.startsWith('generator validity'))).toHaveLength(r.load!.scenarios.length);
  });

  it('carries message and reproduction in failures, and no secrets', () => {
    const root = parseXml(xml);
    const cases = root.children.flatMap((s) => s.children.filter((c) => c.name === 'testcase'));
    const byName = (n: string) => cases.find((c) => c.attrs['name'] === n)!;
    const f = byName(`${failing.clause.section} ${failing.id}: ${failing.title}`).children[0]!;
    expect(f.name).toBe('failure');
    expect(f.attrs['message']).toMatch(/^expected 400 .* observed 200/);
    expect(f.text).toMatch(/reproduce:\ncurl -sS -X POST/);
    expect(f.text).toContain(`re-run the check: qbench check --target emulator --only ${failing.id}`);
    expect(f.text).toContain('<b>&"');
    const thr = byName('threshold run.latency p(99.9)<1').children[0]!;
    expect(thr.attrs['message']).toMatch(/observed 250\.5 \(aborted the run\)/);
    const fuzz = cases.find((c) => c.attrs['name'] === '§3.1 job state machine')!.children[0]!;
    expect(fuzz.text).toMatch(/counterexample: \[run\(\), cancel\(\), retry\(\)\]/);
    expect(fuzz.text).toContain('replay: qbench fuzz --target emulator --property job state machine --seed 42 --path 36:1:0');
    const invalid = cases.filter((c) => c.attrs['name']?.startsWith('generator validity') && c.children[0]?.name === 'error');
    expect(invalid).toHaveLength(1);
    expect(xml).not.toContain(secret);
  });

  it('renders a comparison as valid JUnit with a failure per regression', async () => {
    const slow = sampleResult({ seed: 8, samples: 3_000, tailFactor: 1.3 });
    const c = compareResults(sampleResult({ seed: 7, samples: 3_000 }), slow, { baselineFile: 'a.json', candidateFile: 'b.json', iterations: 300 });
    const cx = renderComparisonJunit(c);
    await xmllint(cx, 'comparison.xml');
    const root = parseXml(cx);
    checkStructure(root);
    const failures = root.children[0]!.children.filter((t) => t.children[0]?.name === 'failure');
    expect(failures.length).toBe(c.scenarios.flatMap((s) => s.steps.flatMap((st) => st.metrics.filter((m) => m.regression))).length);
    expect(failures.length).toBeGreaterThan(0);
  });
});
