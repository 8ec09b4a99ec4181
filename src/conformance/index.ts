// The conformance runner: check model, recording probe, target facts, runner,
// expectations, coverage matrix, result building and the fault self-test.
export { CHECK_TAGS, CheckFailure, CheckInconclusive, CheckSkip, fail, skip, inconclusive, evidenceExchanges, violatingExchange } from './check.js';
export { RateLedger, CLEAN_WINDOW_FACTOR, CLEAN_WINDOW_FLOOR_REAL_MS } from './ledger.js';
export type { RateLease } from './ledger.js';
export type { CheckTag, CheckInterface, CheckKind, CheckPass, CheckContext, CheckDefinition, Evidence } from './check.js';
export { Probe, WRONG_API_KEY, EVIDENCE_BODY_LIMIT_CHARS } from './probe.js';
export type { ProbeInterface, ProbeAuth, ProbeRequest, ProbeResponse, ProbeConfig, HttpMethod } from './probe.js';
export { renderCurl, shellQuote, paddedBodyRecipe, CURL_INLINE_BODY_LIMIT_BYTES } from './curl.js';
export type { CurlAuth, CurlInput } from './curl.js';
export { timeModel } from './time-model.js';
export type { TimeModel } from './time-model.js';
export { EmulatorInfo, limitsFromInfo, specLimits, specRates } from './target.js';
export type { Target, TargetLimits, RateLimitFact } from './target.js';
export { suiteProblems, clauseById } from './suite.js';
export type { Suite, ClauseDef } from './suite.js';
export { buildCoverage, renderCoverageMarkdown, uncoveredObservable } from './coverage.js';
export { runChecks, selectChecks, unknownPatterns, exclusionReason, isSlow, realWaitMs, QUICK_BUDGET_REAL_MS, CHECK_BASE_TIMEOUT_MS, INCONCLUSIVE_ATTEMPTS } from './runner.js';
export type { Profile, RunOptions } from './runner.js';
export { Expectation, ExpectationFile, parseExpectations, loadExpectations, NO_EXPECTATIONS } from './expectations.js';
export type { LoadedExpectations } from './expectations.js';
export { buildConformanceSection, buildResult, conformanceExitCode, isBlocking } from './result.js';
export type { ResultInput } from './result.js';
export { runPool } from './pool.js';
export { runSelfTest, renderDetectionTable, checksForSection } from './self-test.js';
export type { SelfTestRow, SelfTestReport, SelfTestOptions } from './self-test.js';
export { connectTarget, startEmulatorTarget, EMULATOR_MAIN_ENDPOINT, EMULATOR_SPARE_ENDPOINTS, EMULATOR_API_KEY_ENV } from './connect.js';
export type { ConnectOptions, Connected, EmulatorTargetOptions, EmulatorTarget } from './connect.js';
export { loadSuite, shippedSuite, SHIPPED_SUITE_FILE } from './load-suite.js';
