// LLM endpoint measurement: the incremental SSE reader, per-request token timing and goodput over SLOs.
export { SseParser, parseSse, isDoneEvent, SSE_DONE_DATA } from './sse.js';
export type { SseEvent, SseEnd } from './sse.js';
export { SseTokenReader } from './stream-reader.js';
export type { StreamReadResult } from './stream-reader.js';
export { TokenTimer, tokenMetrics, tokensInChunk, chunkOfSseData } from './token-metrics.js';
export type { RequestTokenMetrics, ChunkTokens, ChunkArrival, TokenUsage, TokenSource } from './token-metrics.js';
export { parseSlo, goodput, requestMeets, percentileOf, SLO_METRICS, SLO_PERCENTILES, SLO_UNITS } from './goodput.js';
export type { Slo, SloMetric, SloPercentile, PerRequestSlo, PercentileSlo, PercentileVerdict, GoodputResult } from './goodput.js';
