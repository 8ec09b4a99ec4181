// The plan's grid: default axes derived from the twin (its own values added, the account's cap
// respected), at least 200 settings by default, overrides, invalid and equivalent combinations
// left out, and the axis flag grammar (ranges, lists, durations) with its refusals.
import { describe, expect, it } from 'vitest';
import { ACCOUNT_WORKERS_CAP, resolveDeployment, type DeploymentSettings } from '../../../src/deployment/index.js';
import { AXIS_RULES, axisSchema, defaultAxes, gridSettings, parseAxis, ScalerTypeList, withOverrides } from '../../../src/plan/grid.js';

const pool = { min: 0, max: 3, jobsPerWorker: 1, coldStartMs: 1_000, idleTimeoutMs: 5_000, scaleUpQueueDepth: 1 };
const twin = (d: DeploymentSettings) => resolveDeployment('ep', pool, d);

describe('default axes', () => {
  it('span workersMin 0..2, workersMax up to the default account cap, five idle timeouts, both scalers at 1, 2, 4', () => {
    const a = defaultAxes(twin({ workersMin: 0, workersMax: 3, idleTimeoutS: 5, scalerType: 'QUEUE_DELAY', scalerValue: 4 }));
    expect(a.workersMin).toEqual([0, 1, 2]);
    expect(a.workersMax).toEqual([1, 2, 3, 4, ACCOUNT_WORKERS_CAP.default]);
    expect(a.idleTimeoutS).toEqual([1, 5, 15, 60, 300]);
    expect(a.scalerType).toEqual(['QUEUE_DELAY', 'REQUEST_COUNT']);
    expect(a.scalerValue).toEqual({ QUEUE_DELAY: [1, 2, 4], REQUEST_COUNT: [1, 2, 4] });
  });

  it("add the twin's own values, and reach its workersMax when its account allows more than the default cap", () => {
    const a = defaultAxes(twin({ workersMin: 3, workersMax: 14, idleTimeoutS: 42, scalerType: 'REQUEST_COUNT', scalerValue: 3 }));
    expect(a.workersMax).toEqual([1, 2, 3, 4, 5, 6, 8, 10, 12, 14]);
    expect(a.workersMin).toEqual([0, 1, 2, 3]);
    expect(a.idleTimeoutS).toContain(42);
    expect(a.scalerValue.REQUEST_COUNT).toEqual([1, 2, 3, 4]);
    expect(a.scalerValue.QUEUE_DELAY).toEqual([1, 2, 4]);
  });

  it('give at least 200 settings, none with workersMin above workersMax, none twice', () => {
    const g = gridSettings(defaultAxes(twin({})));
    expect(g.settings.length).toBeGreaterThanOrEqual(200);
    expect(g.settings.every((s) => s.workersMin <= s.workersMax)).toBe(true);
    expect(new Set(g.settings.map((s) => JSON.stringify(s))).size).toBe(g.settings.length);
  });
});

describe('gridSettings', () => {
  const axes = { workersMin: [0, 2], workersMax: [1, 2], idleTimeoutS: [5, 60], scalerType: ['QUEUE_DELAY', 'REQUEST_COUNT'] as const, scalerValue: { QUEUE_DELAY: [1], REQUEST_COUNT: [1, 2] } };
  it('skips workersMin > workersMax and collapses workersMin = workersMax to one setting (scaler and idle timeout change nothing)', () => {
    const g = gridSettings(axes);
    // (0,1) and (0,2): 3 scalers x 2 idle each; (2,1) invalid: 6; (2,2): one kept, 5 equivalent.
    expect(g.settings).toHaveLength(13);
    expect(g.skippedInvalid).toBe(6);
    expect(g.skippedEquivalent).toBe(5);
    expect(g.settings.filter((s) => s.workersMin === 2)).toEqual([{ workersMin: 2, workersMax: 2, idleTimeoutS: 5, scalerType: 'QUEUE_DELAY', scalerValue: 1 }]);
  });

  it('overrides replace an axis; a scaler value list applies to every type', () => {
    const o = withOverrides(axes, { workersMax: [4], scalerType: ['REQUEST_COUNT'], scalerValue: [8] });
    const g = gridSettings(o);
    expect(g.settings.map((s) => `${s.workersMin}/${s.workersMax} ${s.scalerType} ${s.scalerValue} ${s.idleTimeoutS}`)).toEqual(['0/4 REQUEST_COUNT 8 5', '0/4 REQUEST_COUNT 8 60', '2/4 REQUEST_COUNT 8 5', '2/4 REQUEST_COUNT 8 60']);
  });
});

describe('axis flags', () => {
  it('read ranges, lists and both mixed, sorted and distinct', () => {
    expect(parseAxis('1..4', AXIS_RULES.workersMax)).toEqual([1, 2, 3, 4]);
    expect(parseAxis('8, 1..3,2', AXIS_RULES.workersMax)).toEqual([1, 2, 3, 8]);
    expect(parseAxis('5,30s,2m', AXIS_RULES.idleTimeoutS)).toEqual([5, 30, 120]);
  });

  it.each([
    ['0..3', AXIS_RULES.workersMax, /0 outside 1\.\.60/],
    ['1..61', AXIS_RULES.workersMin, /61 outside 0\.\.60/],
    ['0..70', AXIS_RULES.workersMax, /^0, 61, 62, 63, 64 and 6 more outside 1\.\.60$/],
    ['4..2', AXIS_RULES.workersMax, /runs upwards/],
    ['30s', AXIS_RULES.workersMax, /"30s" is not a whole number or a range/],
    ['1500ms', AXIS_RULES.idleTimeoutS, /not a whole number of seconds/],
    ['0', AXIS_RULES.idleTimeoutS, /0 outside 1\.\.3600/],
    ['', AXIS_RULES.workersMax, /"" is not/],
  ])('refuses %s', (text, rule, message) => {
    expect(parseAxis(text, rule)).toMatch(message);
  });

  it('the schema names the accepted forms', () => {
    expect(axisSchema(AXIS_RULES.workersMax).safeParse('x').error?.issues[0]?.message).toMatch(/write a list and\/or ranges of whole numbers, e\.g\. 1\.\.10/);
    expect(ScalerTypeList.parse('request_count, QUEUE_DELAY')).toEqual(['REQUEST_COUNT', 'QUEUE_DELAY']);
    expect(ScalerTypeList.safeParse('QUEUE_DEPTH').error?.issues[0]?.message).toMatch(/scaler types are QUEUE_DELAY, REQUEST_COUNT/);
  });
});
