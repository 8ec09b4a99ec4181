// The LLM probe's defaults (llm-probe.ts), light: the calibrate command's option table reads them
// without loading the probe.
/** contextTokens: tokens each TTFT request asks for (its first token times the prefill, the rest one stream's gap at that context). */
export const LLM_PROBE_DEFAULTS = { promptLengths: [32, 512, 2048], repeats: 3, concurrency: [1, 2, 4, 8], decodeTokens: 64, contextTokens: 32, maxRequests: 60 } as const;
