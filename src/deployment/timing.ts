// The timing model's sampler for one endpoint: each part (cold start, throttle, dispatch,
// execution, stream, overhead) draws from its own seeded stream, so the same seed and the same
// sequence of events give the same timings, and one part drawing more leaves the others as they were.
import { sampleMs } from './distributions.js';
import { seededRng, streamSeed, type Rng } from './random.js';
import type { ResolvedTiming } from './resolve.js';
import type { Distribution, ExecutionTiming } from './schema.js';

const PARTS = ['coldStart', 'throttle', 'dispatch', 'execution', 'firstChunk', 'chunkGap', 'overhead'] as const;
type Part = (typeof PARTS)[number];

function executionDist(e: ExecutionTiming, input: Record<string, unknown>): Distribution {
  if (!('byInputField' in e)) return e;
  const v = input[e.byInputField];
  const key = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
  return (key === undefined ? undefined : e.classes[key]) ?? e.default;
}

export class TimingSampler {
  private streams!: Record<Part, Rng>;

  constructor(
    readonly timing: ResolvedTiming,
    private readonly seed: number,
  ) {
    this.reset();
  }

  /** Every stream back to its start: a reset emulator replays the same timings. */
  reset(): void {
    const s = {} as Record<Part, Rng>;
    for (const p of PARTS) s[p] = seededRng(streamSeed(this.seed, p));
    this.streams = s;
  }

  coldStartMs(): number {
    return sampleMs(this.timing.coldStart, this.streams.coldStart);
  }

  /** How long a starting worker waits for capacity first: 0 for most starts. */
  throttleMs(): number {
    const t = this.timing.throttle;
    if (t === undefined || t.probability === 0) return 0;
    const rng = this.streams.throttle;
    return rng.next() < t.probability ? sampleMs(t.duration, rng) : 0;
  }

  /** From handing a job to an idle worker to its handler's start (0 with no dispatch model). */
  dispatchMs(): number {
    return this.timing.dispatch === undefined ? 0 : sampleMs(this.timing.dispatch, this.streams.dispatch);
  }

  /** The service overhead of one job (0 with no overhead model). */
  overheadMs(): number {
    return this.timing.overhead === undefined ? 0 : sampleMs(this.timing.overhead, this.streams.overhead);
  }

  /** True when jobs run on the model's execution time rather than the handler's own timings. */
  get modelsExecution(): boolean {
    return this.timing.execution !== undefined || this.timing.stream !== undefined;
  }

  /** Execution time of a job with `input` (its class by the named input field); 0 with no execution model. */
  executionMs(input: Record<string, unknown>): number {
    const e = this.timing.execution;
    return e === undefined ? 0 : sampleMs(executionDist(e, input), this.streams.execution);
  }

  firstChunkMs(): number {
    const s = this.timing.stream;
    return s === undefined ? 0 : sampleMs(s.firstChunk, this.streams.firstChunk);
  }

  chunkGapMs(): number {
    const s = this.timing.stream;
    return s === undefined ? 0 : sampleMs(s.chunkGap, this.streams.chunkGap);
  }
}
