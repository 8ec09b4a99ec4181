// LLM endpoint measurement: the incremental SSE reader, per-request token timing and goodput over SLOs,
// workloads, the three paths' requests, a run's summary and the load run over paths and levels.
export { SseParser, parseSse, isDoneEvent, SSE_DONE_DATA } from './sse.js';
export type { SseEvent, SseEnd } from './sse.js';
export { SseTokenReader } from './stream-reader.js';
export type { StreamReadResult } from './stream-reader.js';
export { TokenTimer, tokenMetrics, tokensInChunk, chunkOfSseData } from './token-metrics.js';
export type { RequestTokenMetrics, ChunkTokens, ChunkArrival, TokenUsage, TokenSource } from './token-metrics.js';
export { parseSlo, goodput, requestMeets, percentileOf, SLO_METRICS, SLO_PERCENTILES, SLO_UNITS } from './goodput.js';
export type { Slo, SloMetric, SloPercentile, PerRequestSlo, PercentileSlo, PercentileVerdict, GoodputResult } from './goodput.js';
export { Workload, parseLengthDist, loadLengthDist, drawLength, describeLengthDist, loadDataset, syntheticPrompt, estimateTokens, TOKEN_APPROXIMATION, LENGTH_FORMS } from './workload.js';
export type { LengthDist, LlmRequestSpec, ChatMessage, DatasetEntry, WorkloadOptions } from './workload.js';
export { executeLlmRequest, openAiBody, textOf } from './request.js';
export type { LlmApi, LlmTransport, LlmHttpRequest, LlmHttpAnswer, LlmRequestSettings, LlmRequestContext, LlmRequestOutcome } from './request.js';
export { summarizeLlmRun, saturated, engineSeries, workerFirstChunk, LLM_MAX_LATENESS_P99_MS, LLM_REQUEST_RECORDS } from './aggregate.js';
export type { MeasuredRequest, RawLlmRun } from './aggregate.js';
export { runLlmLoad, undiciTransport, SWEEP_DEFAULT_CONCURRENCY } from './run-llm.js';
export type { LlmRunOptions, LlmRunResult, LlmMode } from './run-llm.js';
