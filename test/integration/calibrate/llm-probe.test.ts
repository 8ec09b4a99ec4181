// The LLM probe by URL against the emulator's engine (real scaled clock, loopback; a chunk a
// token, so that a gap is a slope over many chunks): it fits the engine's rates from TTFT at three
// prompt lengths and gaps at 1, 2, 4 and 8 streams, and the fitted twin predicts what the same
// endpoint shows at a prompt length and two concurrencies it never probed within 15% (host timers,
// HTTP and the other test files on the same cores add a few ms to a figure: the margin covers them
// at these step lengths, 20 ms and more). Wall time about 7 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiProbePort, probeLlm } from '../../../src/calibrate/llm-probe.js';
import { decodeStepMs, prefillStepMs } from '../../../src/deployment/index.js';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';

const KEY = 'llm-probe-key';
const ENGINE = { decodeTokensPerSec: 50, decodeContention: 0.1, prefillTokensPerSec: 4_000, prefillBaseMs: 20, streamBatch: { max: 1 } };
let em: EmulatorHandle;

beforeAll(async () => {
  em = await startEmulator({ apiKey: KEY, endpoints: ['llm'], workers: { min: 1, max: 1, coldStartMs: 0 }, deployments: { llm: { jobsPerWorker: 8, engine: ENGINE } } });
});
afterAll(async () => {
  await em.close();
});

describe('LLM probe by URL', () => {
  it('fits the engine and predicts TTFT at an unprobed prompt length and the gap at two unprobed concurrencies within 15%', async () => {
    const port = openAiProbePort(em.url, 'llm', KEY);
    const probe = await probeLlm({ port, promptLengths: [32, 256, 1024], concurrency: [1, 2, 4, 8], decodeTokens: 32 });
    const f = probe.fit.rates;
    // The fit is near the configured engine (prefill rate is the loosest: 1024 tokens take 256 ms).
    expect(f.decodeTokensPerSec / ENGINE.decodeTokensPerSec).toBeGreaterThan(0.85);
    expect(f.decodeTokensPerSec / ENGINE.decodeTokensPerSec).toBeLessThan(1.15);

    // Measured again, at what the probe did not try: a 512-token prompt alone, 3 and 6 streams.
    const again = await probeLlm({ port, promptLengths: [512], repeats: 3, concurrency: [3, 6], decodeTokens: 32 });
    const ttft512 = again.ttft[0]?.ttftMs as number;
    const what = `fit ${JSON.stringify(f)}; measured TTFT(512) ${ttft512} ms, gaps ${JSON.stringify(again.decode)}`;
    expect(Math.abs(ttft512 - prefillStepMs(f, 512)) / ttft512, what).toBeLessThan(0.15);
    for (const d of again.decode) expect(Math.abs(d.itlMs - decodeStepMs(f, d.streams)) / d.itlMs, what).toBeLessThan(0.15);
    expect(again.decode.map((d) => d.streams)).toEqual([3, 6]);
  });
});
