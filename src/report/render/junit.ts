// JUnit XML renderer: every conformance check, every load threshold and finding, the
// generator's validity and every fuzz property and plan SLO is a test case named by its clause or metric;
// failures carry the message and the reproduction. Valid against the Ant JUnit schema (testsuites
// without attributes; properties, system-out and system-err in every testsuite).
import { redactSecrets } from '../../errors.js';
import { HIGHER_IS_BETTER, type QbenchComparison } from '../../result/compare-model.js';
import type { CheckResult, FuzzProperty, LlmSection, LoadScenarioResult, PlanSection, QbenchResult, TargetInfo } from '../../result/model.js';
import { findingOutcome, llmRunLabel } from '../../result/overall.js';
import { checkRerunCommand, exchangeText, fuzzReplayCommand } from './evidence.js';
import { changeUnit, comparisonUnits, fmtChange, validityWarnings } from './format.js';
import { llmPlanHeadline, llmPlanJunitCases } from './llm-plan.js';
import { planHeadline } from './plan.js';
import { attrs, xmlText, xmlToken } from './xml.js';

type Outcome =
  | { kind: 'pass' }
  | { kind: 'failure' | 'error'; message: string; type: string; body: string }
  | { kind: 'skipped'; message: string };

interface Case {
  name: string;
  classname: string;
  timeSec: number;
  outcome: Outcome;
}

interface Suite {
  name: string;
  pkg: string;
  timestamp: string;
  hostname: string;
  timeSec: number;
  properties: Record<string, string>;
  cases: Case[];
  out: string;
}

/** JUnit timestamps carry no zone and no fraction. */
const junitTime = (iso: string): string => new Date(iso).toISOString().slice(0, 19);
const sec = (ms: number): number => Math.round(ms) / 1_000;

function renderSuites(suites: Suite[]): string {
  const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites>'];
  suites.forEach((s, id) => {
    const count = (k: Outcome['kind']) => s.cases.filter((c) => c.outcome.kind === k).length;
    parts.push(
      `  <testsuite${attrs({
        name: s.name,
        package: s.pkg,
        id,
        timestamp: s.timestamp,
        hostname: s.hostname || 'localhost',
        tests: s.cases.length,
        failures: count('failure'),
        errors: count('error'),
        skipped: count('skipped'),
        time: s.timeSec.toFixed(3),
      })}>`,
    );
    parts.push('    <properties>');
    for (const [k, v] of Object.entries(s.properties)) parts.push(`      <property name="${xmlToken(k)}"${attrs({ value: redactSecrets(v) })}/>`);
    parts.push('    </properties>');
    for (const c of s.cases) {
      const head = `    <testcase name="${xmlToken(c.name)}" classname="${xmlToken(c.classname)}" time="${c.timeSec.toFixed(3)}"`;
      const o = c.outcome;
      if (o.kind === 'pass') parts.push(`${head}/>`);
      else if (o.kind === 'skipped') parts.push(`${head}>`, `      <skipped${attrs({ message: redactSecrets(o.message) })}/>`, '    </testcase>');
      else {
        parts.push(
          `${head}>`,
          `      <${o.kind}${attrs({ message: redactSecrets(o.message), type: o.type })}>${xmlText(redactSecrets(o.body))}</${o.kind}>`,
          '    </testcase>',
        );
      }
    }
    parts.push(`    <system-out>${xmlText(redactSecrets(s.out))}</system-out>`, '    <system-err></system-err>', '  </testsuite>');
  });
  parts.push('</testsuites>', '');
  return parts.join('\n');
}

function checkCase(c: CheckResult, profile: string, target: TargetInfo): Case {
  const name = `${c.clause.section} ${c.id}: ${c.title}`;
  const classname = `qbench.conformance.${c.kind}.${c.clause.section}`;
  const timeSec = sec(c.durationMs);
  const v = c.verdict;
  const quote = `${c.clause.section}: "${c.clause.quote}"`;
  let outcome: Outcome;
  if (c.expectation?.matched && v.status !== 'pass') {
    outcome = { kind: 'skipped', message: `expected ${v.status} (expectation file, profile ${profile}): ${c.expectation.reason}` };
  } else if (c.expectation && !c.expectation.matched) {
    outcome = {
      kind: 'failure',
      type: 'expectation-mismatch',
      message: `${v.status}, but the expectation file said ${c.expectation.expected}: ${c.expectation.reason}`,
      body: `${quote}\nUpdate the expectation file if the target changed.`,
    };
  } else if (v.status === 'pass') outcome = { kind: 'pass' };
  else if (v.status === 'skip') outcome = { kind: 'skipped', message: v.reason };
  else if (v.status === 'inconclusive') outcome = { kind: 'skipped', message: `inconclusive: ${v.reason}` };
  else if (v.status === 'error') outcome = { kind: 'error', type: 'check-error', message: v.message, body: `${quote}\n${v.stack ?? v.message}` };
  else if (c.kind === 'compat') {
    outcome = { kind: 'skipped', message: `compat finding (not a spec failure): expected ${v.expected}, observed ${v.observed}` };
  } else {
    outcome = {
      kind: 'failure',
      type: 'spec-violation',
      message: `expected ${v.expected}, observed ${v.observed}`,
      body: [quote, `expected: ${v.expected}`, `observed: ${v.observed}`, '', 'reproduce:', v.curl, `re-run the check: ${checkRerunCommand(c, target)}`, '', ...v.exchanges.map(exchangeText)].join('\n'),
    };
  }
  return { name, classname, timeSec, outcome };
}

function scenarioCases(s: LoadScenarioResult): Case[] {
  const classname = `qbench.load.${s.name}`;
  const cases: Case[] = [];
  const warnings = validityWarnings(s.validity);
  cases.push({
    name: 'generator validity (the load generator kept up)',
    classname,
    timeSec: sec(s.durationMs),
    outcome: s.validity.valid
      ? { kind: 'pass' }
      : { kind: 'error', type: 'invalid-measurement', message: warnings[0] ?? 'measurement invalid', body: warnings.join('\n') },
  });
  for (const t of s.thresholds) {
    cases.push({
      name: `threshold ${t.metric} ${t.expression}`,
      classname: `${classname}.thresholds`,
      timeSec: 0,
      outcome: t.passed
        ? { kind: 'pass' }
        : {
            kind: 'failure',
            type: 'threshold',
            message: `${t.metric} ${t.expression}: observed ${t.observed ?? 'no data'}${t.abortOnFail ? ' (aborted the run)' : ''}`,
            body: `scenario ${s.name}, executor ${s.executor}\nre-run the scenario with this configuration:\n${JSON.stringify(s.config)}`,
          },
    });
  }
  for (const f of s.verdict.findings) {
    const o = findingOutcome(f, s.verdict.status);
    cases.push({
      name: `${f.clause ? `${f.clause} ` : ''}${f.label}`,
      classname: `${classname}.findings`,
      timeSec: 0,
      outcome:
        o === 'pass'
          ? { kind: 'pass' }
          : o === 'inconclusive'
            ? { kind: 'skipped', message: `inconclusive: ${f.precondition === true ? 'precondition not reached' : 'not judged'}: expected ${f.expected}, observed ${f.observed}; ${s.verdict.summary}` }
            : { kind: 'failure', type: 'finding', message: `expected ${f.expected}, observed ${f.observed}`, body: `scenario ${s.name}\nre-run the scenario with this configuration:\n${JSON.stringify(s.config)}` },
    });
  }
  if (s.verdict.status === 'inconclusive' && s.verdict.findings.every((f) => f.passed)) {
    cases.push({ name: 'scenario verdict', classname, timeSec: 0, outcome: { kind: 'skipped', message: `inconclusive: ${s.verdict.summary}` } });
  }
  return cases;
}

function fuzzCase(p: FuzzProperty, seed: number, target: TargetInfo): Case {
  const name = `${p.clause.section} ${p.name}`;
  const classname = `qbench.fuzz.${p.kind}`;
  const timeSec = sec(p.durationMs);
  if (p.status === 'pass') return { name, classname, timeSec, outcome: { kind: 'pass' } };
  if (p.status === 'error') return { name, classname, timeSec, outcome: { kind: 'error', type: 'property-error', message: p.error ?? 'property errored', body: p.error ?? '' } };
  const f = p.finding;
  return {
    name,
    classname,
    timeSec,
    outcome: {
      kind: 'failure',
      type: 'counterexample',
      message: f ? `expected ${f.expected}, observed ${f.observed}` : 'property failed',
      body: f
        ? [
            `${p.clause.section}: "${p.clause.quote}"`,
            `counterexample: ${f.counterexample}`,
            `replay: ${fuzzReplayCommand(p, target) ?? `seed ${f.seed}, path ${f.path}`}`,
            ...(f.curl ? ['reproduce:', f.curl] : []),
            ...f.exchanges.map(exchangeText),
          ].join('\n')
        : `fuzz seed ${seed}`,
    },
  };
}

/** A plan's SLOs as test cases: met by the chosen setting, or failed with what would be needed. */
function planCases(p: PlanSection): Case[] {
  return p.slos.map((slo): Case => {
    const classname = 'qbench.plan.slo';
    if (p.chosen !== null) return { name: slo.text, classname, timeSec: 0, outcome: { kind: 'pass' } };
    const about = p.needed.filter((n) => n.includes(slo.text));
    const body = (about.length > 0 ? about : p.needed).join('\n');
    return { name: slo.text, classname, timeSec: 0, outcome: { kind: 'failure', type: 'slo-not-met', message: planHeadline(p), body } };
  });
}

/**
 * The LLM section as test cases: per run, the generator's validity, that some request succeeded,
 * and each SLO (a sweep level's SLO that missed is skipped: the sweep measures levels that are
 * meant to break them, and its own case says whether any level met them all).
 */
function llmCases(llm: LlmSection): Case[] {
  const cases: Case[] = [];
  for (const r of llm.runs) {
    const label = llmRunLabel(r);
    const classname = `qbench.llm.${r.path}`;
    const sent = r.requests.completed + r.requests.failed;
    cases.push({
      name: `${label}: generator validity`,
      classname,
      timeSec: sec(r.wallMs),
      outcome: r.validity.valid ? { kind: 'pass' } : { kind: 'error', type: 'invalid-measurement', message: r.validity.reasons[0] ?? 'measurement invalid', body: r.validity.reasons.join('\n') },
    });
    cases.push({
      name: `${label}: requests succeed`,
      classname,
      timeSec: 0,
      outcome: sent > 0 && r.requests.completed === 0 ? { kind: 'failure', type: 'requests-failed', message: `every one of ${sent} requests failed`, body: r.requests.errors.join('\n') } : { kind: 'pass' },
    });
    for (const x of r.slos) {
      const figure = x.kind === 'percentile' ? `observed ${x.valueMs === null ? 'no data' : `${x.valueMs} ms`}` : `met by ${x.metRequests} of ${sent} requests`;
      const outcome: Outcome = x.holds
        ? { kind: 'pass' }
        : r.role === 'fixed'
          ? { kind: 'failure', type: 'slo-not-met', message: `${x.text}: ${figure}`, body: `${label}\nTTFT p99 ${r.ttft.percentiles.p99} ms, ITL p99 ${r.itl.percentiles.p99} ms, TPOT p99 ${r.tpot.percentiles.p99} ms, e2e p99 ${r.e2e.percentiles.p99} ms` }
          : { kind: 'skipped', message: `${x.text}: ${figure} (a sweep level: measured, not judged)` };
      cases.push({ name: `${label}: SLO ${x.text}`, classname: `${classname}.slo`, timeSec: 0, outcome });
    }
  }
  if (llm.slos.length > 0) {
    for (const a of llm.sweepAnswers ?? []) {
      cases.push({
        name: `${a.path} sweep: a rate level meets every SLO`,
        classname: `qbench.llm.${a.path}.sweep`,
        timeSec: 0,
        outcome: a.maxRatePerSec === null ? { kind: 'failure', type: 'slo-not-met', message: `no rate level met ${llm.slos.join(', ')}`, body: `saturation at ${a.saturationRatePerSec ?? 'unknown'} requests/s` } : { kind: 'pass' },
      });
    }
  }
  return cases;
}

/** Render a result as JUnit XML. */
export function renderJunit(r: QbenchResult): string {
  const host = r.meta.machine.hostname;
  const baseProps = {
    'qbench.version': r.meta.qbenchVersion,
    target: `${r.meta.target.kind} ${r.meta.target.queueUrl} endpoint ${r.meta.target.endpointId}`,
    'time.scale': String(r.meta.target.timeScale),
    command: r.meta.command.join(' '),
    'overall.status': r.overall.status,
    'overall.exitCode': String(r.overall.exitCode),
  };
  const suites: Suite[] = [];
  if (r.conformance) {
    const c = r.conformance;
    suites.push({
      name: `conformance (${c.profile})`,
      pkg: 'qbench.conformance',
      timestamp: junitTime(r.meta.startedAt),
      hostname: host,
      timeSec: sec(c.checks.reduce((a, x) => a + x.durationMs, 0)),
      properties: { ...baseProps, profile: c.profile },
      cases: c.checks.map((x) => checkCase(x, c.profile, r.meta.target)),
      out: `pass ${c.summary.pass}, fail ${c.summary.fail}, skip ${c.summary.skip}, error ${c.summary.error}`,
    });
  }
  for (const s of r.load?.scenarios ?? []) {
    suites.push({
      name: `load ${s.name}`,
      pkg: 'qbench.load',
      timestamp: junitTime(s.startedAt),
      hostname: host,
      timeSec: sec(s.durationMs),
      properties: { ...baseProps, executor: s.executor, 'verdict.status': s.verdict.status, config: JSON.stringify(s.config) },
      cases: scenarioCases(s),
      out: `${s.verdict.status}: ${s.verdict.summary}`,
    });
  }
  if (r.fuzz) {
    const f = r.fuzz;
    suites.push({
      name: 'fuzz',
      pkg: 'qbench.fuzz',
      timestamp: junitTime(r.meta.startedAt),
      hostname: host,
      timeSec: sec(f.durationMs),
      properties: { ...baseProps, seed: String(f.seed), numRuns: String(f.numRuns) },
      cases: f.properties.map((p) => fuzzCase(p, f.seed, r.meta.target)),
      out: `seed ${f.seed}, ${f.numRuns} runs per property`,
    });
  }
  if (r.plan) {
    const p = r.plan;
    suites.push({
      name: 'plan',
      pkg: 'qbench.plan',
      timestamp: junitTime(r.meta.startedAt),
      hostname: host,
      timeSec: sec(p.sweep.wallMs),
      properties: { ...baseProps, twin: p.twin.file, traffic: p.traffic.description, settings: String(p.grid.settings), seeds: p.seeds.join(',') },
      cases: planCases(p),
      out: planHeadline(p),
    });
  }
  if (r.llm) {
    const l = r.llm;
    suites.push({
      name: 'llm',
      pkg: 'qbench.llm',
      timestamp: junitTime(r.meta.startedAt),
      hostname: host,
      timeSec: sec(l.runs.reduce((a, x) => a + x.wallMs, 0)),
      properties: { ...baseProps, mode: l.mode, workload: `${l.workload.prompt}; output ${l.workload.output}; seed ${l.workload.seed}`, slos: l.slos.join(', ') },
      cases: llmCases(l),
      out: l.runs.map((x) => `${llmRunLabel(x)}: ${x.requests.completed} ok, ${x.requests.failed} failed, TTFT p50 ${x.ttft.percentiles.p50} ms, ${x.throughput.outputTokensPerSec} tokens/s, goodput ${x.throughput.goodputPerSec}/s`).join('\n'),
    });
  }
  if (r.llmPlan) {
    const p = r.llmPlan;
    suites.push({
      name: 'llm plan',
      pkg: 'qbench.llmplan',
      timestamp: junitTime(r.meta.startedAt),
      hostname: host,
      timeSec: sec(p.sweep.wallMs),
      properties: { ...baseProps, twin: p.twin.file, traffic: `${p.traffic.ratePerSec} requests/s of ${p.traffic.promptTokens} + ${p.traffic.outputTokens} tokens`, workers: p.grid.workers.join(','), jobsPerWorker: p.grid.jobsPerWorker.join(','), seed: String(p.seed) },
      cases: llmPlanJunitCases(p).map((c): Case => ({ name: c.name, classname: 'qbench.llmplan.slo', timeSec: 0, outcome: c.failure === undefined ? { kind: 'pass' } : { kind: 'failure', type: 'slo-not-met', message: c.failure.message, body: c.failure.body } })),
      out: llmPlanHeadline(p),
    });
  }
  if (r.incomplete) {
    // A run rebuilt from its journal: CI sees it failed to finish, and which units never ran.
    const inc = r.incomplete;
    suites.push({
      name: 'incomplete',
      pkg: 'qbench.incomplete',
      timestamp: junitTime(r.meta.startedAt),
      hostname: host,
      timeSec: sec(r.meta.durationMs),
      properties: baseProps,
      cases: [
        { name: 'the run finished', classname: 'qbench.incomplete', timeSec: 0, outcome: { kind: 'error', message: inc.note, type: 'incomplete', body: r.overall.reasons.join('\n') } },
        ...inc.notRun.map((name): Case => ({ name, classname: 'qbench.incomplete.not-run', timeSec: 0, outcome: { kind: 'skipped', message: `not run: ${inc.note}` } })),
      ],
      out: r.overall.reasons.join('\n'),
    });
  }
  if (suites.length === 0) {
    suites.push({
      name: 'qbench',
      pkg: 'qbench',
      timestamp: junitTime(r.meta.startedAt),
      hostname: host,
      timeSec: sec(r.meta.durationMs),
      properties: baseProps,
      cases: [],
      out: r.overall.reasons.join('\n'),
    });
  }
  return renderSuites(suites);
}

/** Render a comparison as JUnit XML: one test case per scenario, step and metric, and per LLM path, level and metric. */
export function renderComparisonJunit(c: QbenchComparison): string {
  const cases: Case[] = [];
  for (const s of comparisonUnits(c)) {
    for (const st of s.rows) {
      for (const m of st.metrics) {
        const margin = m.maxRegressionPct === null ? 'reported only' : `max ${m.unit === 'ratio' ? `+${m.maxRegressionPct} points` : `${HIGHER_IS_BETTER.has(m.metric) ? '−' : '+'}${m.maxRegressionPct}%`}`;
        cases.push({
          name: `${st.label} ${m.metric} (${margin})`,
          classname: `qbench.compare.${s.suite}`,
          timeSec: 0,
          outcome: m.regression
            ? {
                kind: 'failure',
                type: 'regression',
                message: `${m.metric} ${m.baseline ?? '–'} → ${m.candidate ?? '–'} (${fmtChange(m.changePct, changeUnit(m))}${m.ci ? `, ${Math.round(m.ci.level * 100)}% CI ${fmtChange(m.ci.lowPct)} … ${fmtChange(m.ci.highPct)}` : ''})`,
                body: `baseline ${c.baseline.file}\ncandidate ${c.candidate.file}\nreproduce: qbench compare ${c.baseline.file} ${c.candidate.file}`,
              }
            : { kind: 'pass' },
        });
      }
    }
    for (const why of s.invalid) cases.push({ name: `${s.name} measurement validity`, classname: `qbench.compare.${s.suite}`, timeSec: 0, outcome: { kind: 'error', type: 'invalid-measurement', message: why, body: why } });
  }
  return renderSuites([
    {
      name: 'compare',
      pkg: 'qbench.compare',
      timestamp: junitTime(c.createdAt),
      hostname: 'localhost',
      timeSec: 0,
      properties: {
        baseline: c.baseline.file,
        candidate: c.candidate.file,
        latency: c.options.latency,
        confidenceLevel: String(c.options.confidenceLevel),
        iterations: String(c.options.iterations),
        seed: String(c.options.seed),
      },
      cases,
      out: c.verdict.reasons.join('\n'),
    },
  ]);
}
