// The report subsystem: the versioned result model, its renderers (JSON, HTML, JUnit,
// markdown, console), HDR histogram utilities, thresholds on saved results, compare and merge.
export {
  SCHEMA_VERSION, TargetInfo, MachineInfo, RunMeta, HttpExchange, Clause, Verdict, CheckResult, CoverageRow,
  ConformanceSection, OUTCOME_CLASSES, OutcomeClass, OutcomeCounts, Percentiles, EncodedHistogram, LatencySummary,
  StepResult, IntervalPoint, StepSeries, Validity, ThresholdResult, Finding, Chart, ScenarioVerdict,
  LoadScenarioResult, LoadSection, RunCost, FuzzProperty, FuzzSection, OverallVerdict, QbenchResult,
} from './model.js';
export type { VerdictStatus } from './model.js';
export {
  COMPARE_METRICS, CompareMetric, MetricChange, StepComparison, ScenarioComparison, QbenchComparison,
} from './compare-model.js';
export {
  HISTOGRAM_CONFIG, createHistogram, recordMs, histogramFromMs, encodeHistogram, decodeHistogram, mergeHistograms,
  mergeEncoded, valueAtPercentileMs, percentilesOf, percentilesOfEncoded, summarize, mergeSummaries, bucketsOf,
  percentileSpectrum, spectrumLevels,
} from './histogram.js';
export type { Histogram, HistogramOptions, HistogramBucket } from './histogram.js';
export {
  parseThresholdExpression, metricKind, validateThreshold, scenarioMetric, aggregate, evaluateThreshold, evaluateThresholds,
} from './thresholds.js';
export type { ParsedThreshold, ThresholdSpec, MetricValue, MetricKind } from './thresholds.js';
export { computeOverall, checkFailsRun } from './overall.js';
export type { OverallExtras } from './overall.js';
export { collectMachineInfo, buildMeta, redactArgv, redactUrl } from './machine.js';
export type { BuildMetaInput } from './machine.js';
export { parseResult, readResult } from './read-result.js';
export { renderJson } from './render/json.js';
export { renderHtml, renderComparisonHtml } from './render/html.js';
export { renderJunit, renderComparisonJunit } from './render/junit.js';
export { renderMarkdown, renderComparisonMarkdown } from './render/markdown.js';
export { renderConsole, renderComparisonConsole } from './render/console.js';
export type { ConsoleOptions } from './render/console.js';
export { validityWarnings } from './render/format.js';
export { writeAllReports, writeComparisonReports, timestampDirName, REPORT_FILES, COMPARISON_FILES } from './write-all.js';
export type { WrittenReports, WriteAllOptions } from './write-all.js';
export { compareResults, parseMaxRegression, DEFAULT_MAX_REGRESSION, COMPARE_LIMITS } from './compare.js';
export type { CompareOptions } from './compare.js';
export { SCHEMA_FILES, writeSchemas } from './schema.js';
export { mergeResults } from './merge.js';
export type { MergeInput, MergeOptions } from './merge.js';
