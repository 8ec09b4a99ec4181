// The simulated worker's run when the endpoint models execution: it takes as long as the timing
// model says (by input class when one is named), and a streaming model emits chunks at its
// first-chunk time and chunk gaps until the execution time is over. Each step is one timer of the
// emulator clock with a shared callback (no promise, no closure per job), so the same code serves
// HTTP on the scaled clock and the discrete-event simulator on the virtual clock at the cost of a
// heap entry per step. Jobs that ask for the mock-worker contract (a mock_* or openai_route field)
// keep it: see modelledInput.
import type { TimingSampler } from '../../../deployment/index.js';
import type { Clock, TimerHandle } from '../../clock.js';
import type { HandlerOutcome } from './types.js';
import { DEFAULT_MOCK_RETURN } from './mock-worker.js';

/** True when the job's timings come from the model: its input has no mock-worker control field. */
export function modelledInput(input: Record<string, unknown>): boolean {
  for (const k in input) if (k.startsWith('mock_') || k === 'openai_route') return false;
  return true;
}

/** One streamed chunk of a modelled job. */
export interface ModelChunk {
  readonly index: number;
  readonly tokens: number;
}

/** What a modelled run needs of its job on its worker (the endpoint's SimulatedRun). */
export interface TimedRunContext {
  readonly clock: Clock;
  readonly input: Record<string, unknown>;
  /** Stream one chunk (ignored once the job stopped). */
  emit(output: unknown): void;
  /** The run ended with `outcome` (ignored once the job stopped). */
  done(outcome: HandlerOutcome): void;
  /** The run's pending step; the endpoint cancels it when the job stops. */
  runTimer: TimerHandle | undefined;
}

/** The least time between two modelled chunks, ms. */
const MIN_CHUNK_GAP_MS = 1;

const PLAIN_OUTCOME: HandlerOutcome = Object.freeze({ kind: 'output', output: DEFAULT_MOCK_RETURN, refresh: false });

/** A streaming run between its steps. */
class StreamRun {
  readonly chunks: ModelChunk[] = [];
  elapsedMs = 0;
  constructor(
    readonly ctx: TimedRunContext,
    readonly executionMs: number,
  ) {}
}

export class TimedExecution {
  constructor(
    private readonly timing: TimingSampler,
    private readonly onTokens: (tokens: number) => void,
  ) {}

  /**
   * Start the run of one job: its end (and chunks) scheduled on the context's clock. Answers the
   * ms until it ends (known now: chunks stop at the execution time, the first one excepted).
   */
  run(ctx: TimedRunContext): number {
    const executionMs = this.timing.executionMs(ctx.input);
    if (this.timing.timing.stream === undefined) {
      if (executionMs > 0) ctx.runTimer = ctx.clock.setTimerFor(executionMs, endPlain, ctx);
      else ctx.done(PLAIN_OUTCOME);
      return executionMs;
    }
    const s = new StreamRun(ctx, executionMs);
    s.elapsedMs = this.timing.firstChunkMs();
    ctx.runTimer = ctx.clock.setTimerFor(s.elapsedMs, this.onChunkDue, s);
    return Math.max(s.elapsedMs, executionMs);
  }

  /** A chunk is due: emit it, then schedule the next one (a gap drawn now) or the end. */
  private readonly onChunkDue = (s: StreamRun): void => {
    s.ctx.runTimer = undefined;
    const c: ModelChunk = { index: s.chunks.length, tokens: this.timing.timing.stream?.tokensPerChunk ?? 1 };
    s.chunks.push(c);
    s.ctx.emit(c);
    this.onTokens(c.tokens);
    // A gap of 0 (a constant or an empirical model may draw one) would never reach the end of the
    // execution: chunks are at least 1 ms apart.
    const gapMs = Math.max(MIN_CHUNK_GAP_MS, this.timing.chunkGapMs());
    if (s.elapsedMs + gapMs <= s.executionMs) {
      s.elapsedMs += gapMs;
      s.ctx.runTimer = s.ctx.clock.setTimerFor(gapMs, this.onChunkDue, s);
      return;
    }
    if (s.executionMs > s.elapsedMs) s.ctx.runTimer = s.ctx.clock.setTimerFor(s.executionMs - s.elapsedMs, endStream, s);
    else endStream(s);
  };
}

function endPlain(ctx: TimedRunContext): void {
  ctx.runTimer = undefined;
  ctx.done(PLAIN_OUTCOME);
}

function endStream(s: StreamRun): void {
  s.ctx.runTimer = undefined;
  s.ctx.done({ kind: 'output', output: s.chunks, refresh: false });
}
