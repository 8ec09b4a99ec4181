// The result model every producer writes (conformance, load, fuzz, calibrate, the journal):
// the versioned zod schema and its JSON Schema files, the overall verdict and exit code, machine
// facts for `meta`, HDR histogram encoding, thresholds on results, and reading a saved result.
export {
  SCHEMA_VERSION, TargetInfo, MachineInfo, RunMeta, HttpExchange, Clause, Verdict, CheckResult, CoverageRow,
  ConformanceSection, OUTCOME_CLASSES, OutcomeClass, OutcomeCounts, Percentiles, EncodedHistogram, LatencySummary,
  StepResult, IntervalPoint, StepSeries, Validity, ThresholdResult, Finding, Chart, ScenarioVerdict,
  LoadScenarioResult, LoadSection, RunCost, LLM_PATHS, LlmPath, LlmLoad, LlmSloResult, LlmRequestRecord, LlmRun, LlmSection, FuzzProperty, FuzzSection, OverallVerdict, QbenchResult,
} from './model.js';
export type { VerdictStatus } from './model.js';
export {
  COMPARE_METRICS, CompareMetric, MetricChange, StepComparison, ScenarioComparison, LlmLevelComparison, QbenchComparison,
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
export { RESULT_FILE, parseResult, readResult } from './read-result.js';
export { SCHEMA_FILES, writeSchemas } from './schema.js';
