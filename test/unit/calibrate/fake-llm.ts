// An OpenAI route on one worker that follows the engine's formulas exactly, for the LLM probe's
// tests: stream i of a batch gets its first token 5 ms after stream i - 1 (a prefill each); all
// decode together, a token every streamGapMs(n) each (a step of step(n), or with the parallel
// scheduler n / (n - 1) steps of n - 1), once the last one started. Counts its requests. `queueMs`
// is added to every time, as a queue in front of the engine would.
import type { LlmProbePort } from '../../../src/calibrate/llm-probe.js';
import { prefillStepMs, streamGapMs, type LlmEngine } from '../../../src/deployment/index.js';

export function formulaLlmPort(e: Pick<LlmEngine, 'decodeTokensPerSec' | 'decodeContention' | 'prefillTokensPerSec' | 'prefillBaseMs'> & Partial<Pick<LlmEngine, 'scheduler'>>, queueMs = 0): LlmProbePort & { sent: () => number } {
  let inFlight = 0;
  let sent = 0;
  return {
    sent: () => sent,
    async complete(promptTokens, maxTokens) {
      sent += 1;
      const i = inFlight;
      inFlight += 1;
      // Every call of a batch is made before any awaits: the count is the batch's size here.
      await Promise.resolve();
      const n = inFlight;
      const allStarted = 5 * (n - 1) + prefillStepMs(e, promptTokens);
      const chunks = [{ atMs: 5 * i + prefillStepMs(e, promptTokens), tokens: 1 }];
      for (let k = 1; k < maxTokens; k += 1) chunks.push({ atMs: allStarted + k * streamGapMs(e, n), tokens: 1 });
      await Promise.resolve();
      inFlight -= 1;
      return { sentAtMs: 0, chunks: chunks.map((c) => ({ ...c, atMs: c.atMs + queueMs })) };
    },
  };
}
