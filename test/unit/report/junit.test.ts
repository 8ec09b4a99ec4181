// JUnit XML: the structure the common JUnit schema requires (a small strict parser; xmllint
// against test/unit/report/fixtures/junit.xsd runs in test/integration/report/junit-xsd.test.ts),
// every check, threshold, finding and fuzz property a test case named by clause or metric,
// failures with message and reproduction, and no secrets.
import { describe, expect, it } from 'vitest';
import { renderComparisonJunit, renderJunit } from '../../../src/report/render/junit.js';
import { hostileJunitResult, regressedComparison } from './junit-samples.js';

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

describe('JUnit renderer', () => {
  const secret = 'sk-live-SECRET-123456';
  const r = hostileJunitResult(secret);
  const failing = r.conformance!.checks.find((c) => c.verdict.status === 'fail')!;
  const xml = renderJunit(r);

  it('has the structure of the JUnit schema', () => {
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

  it('renders a comparison as JUnit with a failure per regression', () => {
    const c = regressedComparison();
    const cx = renderComparisonJunit(c);
    const root = parseXml(cx);
    checkStructure(root);
    const failures = root.children[0]!.children.filter((t) => t.children[0]?.name === 'failure');
    expect(failures.length).toBe(c.scenarios.flatMap((s) => s.steps.flatMap((st) => st.metrics.filter((m) => m.regression))).length);
    expect(failures.length).toBeGreaterThan(0);
  });
});
