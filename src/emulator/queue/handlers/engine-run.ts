// The deployment's LLM engine on the emulator clock: one WorkerEngine (src/deployment/engine.ts)
// per simulated worker holding jobs, one timer per worker for its running step, and per job the
// answer in the shape its path asks: OpenAI chunks (a role-only first chunk on chat, usage last
// when stream_options.include_usage) grouped into worker-vllm's growing batches of events, or
// worker-vllm's native stream items {choices: [{tokens}], usage: {input, output}} with §2.3
// metrics. Steps run on timers only (no promise), so the same code serves HTTP on the scaled
// clock and the simulator on the virtual clock; token times are exact sums of step durations.
import { EngineSeq, StreamBatcher, WorkerEngine, type LlmEngine } from '../../../deployment/index.js';
import type { Clock, TimerHandle } from '../../clock.js';
import { isEngineInput, parseEngineInput, parseOpenAi, type EngineParse, type EngineRequest } from './engine-requests.js';
import { tokenText } from './llm.js';
import { completion, modelsList, roleChunk, textChunk, usageChunk, usageOf, type OpenAiHead } from './openai.js';
import type { HandlerOutcome } from './types.js';

/** What an engine run needs of its job on its worker (the endpoint's SimulatedRun). */
export interface EngineRunContext {
  readonly clock: Clock;
  readonly input: Record<string, unknown>;
  readonly jobId: string;
  /** Stream one chunk (ignored once the job stopped). */
  emit(output: unknown, metrics?: Record<string, unknown>): void;
  /** The run ended (ignored once the job stopped). */
  done(outcome: HandlerOutcome): void;
  /** Jobs waiting in the endpoint's queue now. */
  pendingJobs(): number;
  /** The endpoint cancels it when the job stops: for an engine job, leaving its worker's engine. */
  runTimer: TimerHandle | undefined;
}

type Generating = Exclude<EngineRequest, { kind: 'models' }>;

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** One worker's engine and its step timer. */
class WorkerRun {
  readonly engine: WorkerEngine<EngineJob>;
  timer: TimerHandle | undefined = undefined;
  /** Inside the end of a step: a job arriving now joins the step begun right after. */
  ending = false;
  /** When the first request of an idle worker arrived: its step begins then, after the events due at that instant. */
  beginAtMs: number | undefined = undefined;
  constructor(
    readonly exec: EngineExecution,
    readonly workerId: string,
    readonly clock: Clock,
  ) {
    this.engine = new WorkerEngine(exec.engine);
  }
}

/** One job on the engine; as its job's runTimer, cancel() takes it off its worker's engine. */
class EngineJob implements TimerHandle {
  readonly seq: EngineSeq<EngineJob>;
  private readonly batcher: StreamBatcher;
  /** Units of the chunk being filled: OpenAI chunks, or token texts on the native stream. */
  private pending: unknown[] = [];
  /** Native stream items sent (the job's output, as worker-vllm's aggregate stream). */
  private readonly items: unknown[] = [];
  private text = '';
  private readonly head: OpenAiHead | undefined;
  private readonly admittedMs: number;
  private firstTokenMs = 0;

  constructor(
    private readonly run: WorkerRun,
    private readonly ctx: EngineRunContext,
    private readonly req: Generating,
  ) {
    this.seq = new EngineSeq(req.promptTokens, req.maxTokens, this);
    const engine = run.exec.engine;
    this.batcher = new StreamBatcher(req.kind === 'native' ? req.batch : engine.streamBatch);
    this.admittedMs = ctx.clock.now();
    this.head = req.kind === 'openai' ? { id: `${req.chat ? 'chatcmpl' : 'cmpl'}-${ctx.jobId}`, created: Math.floor(this.admittedMs / 1000), model: req.model, chat: req.chat } : undefined;
  }

  get dueAtMs(): number {
    return Infinity;
  }

  cancel(): void {
    this.run.exec.leave(this.run, this.seq);
  }

  /** The step that just ended at `nowMs` gave this job its next token. */
  token(nowMs: number): void {
    const i = this.seq.generated - 1;
    const text = tokenText(i);
    this.text += text;
    if (i === 0) this.firstTokenMs = nowMs;
    const last = this.seq.generated >= this.seq.outputTokens;
    const req = this.req;
    if (req.kind === 'openai' && req.stream) {
      const h = this.head as OpenAiHead;
      if (i === 0 && req.chat) this.push(roleChunk(h), nowMs);
      this.push(textChunk(h, text, last ? 'length' : null), nowMs);
      if (last && req.includeUsage) this.push(usageChunk(h, usageOf(req.promptTokens, this.seq.generated)), nowMs);
    } else if (req.kind === 'native' && req.stream) {
      this.push(text, nowMs);
    }
    if (last) this.finish(nowMs);
  }

  /** One unit more; the chunk goes once it holds the batch's size. */
  private push(unit: unknown, nowMs: number): void {
    this.pending.push(unit);
    if (this.pending.length >= this.batcher.current) this.flush(nowMs);
  }

  private flush(nowMs: number): void {
    if (this.pending.length === 0) return;
    const units = this.pending;
    this.pending = [];
    this.batcher.sent();
    // A batch of OpenAI events goes as consecutive chunks (the route writes them in one write).
    if (this.req.kind === 'openai') for (const u of units) this.ctx.emit(u);
    else this.emitItem(units as string[], nowMs);
  }

  /** A native stream item with its §2.3 metrics. */
  private emitItem(tokens: string[], nowMs: number): void {
    const item = { choices: [{ tokens }], usage: { input: this.seq.promptTokens, output: this.seq.generated } };
    this.items.push(item);
    const engine = this.run.exec.engine;
    let kv = 0;
    for (const s of this.run.engine.seqs()) kv += s.promptTokens + s.generated;
    // This job's own tokens count even once it has left the engine (its last item).
    if (this.seq.state === 'done') kv += this.seq.promptTokens + this.seq.generated;
    const decodeSec = (nowMs - this.firstTokenMs) / 1_000;
    const prefillSec = (this.firstTokenMs - this.admittedMs) / 1_000;
    this.ctx.emit(item, {
      avg_gen_throughput: decodeSec > 0 ? round3((this.seq.generated - 1) / decodeSec) : 0,
      avg_prompt_throughput: prefillSec > 0 ? round3(this.seq.promptTokens / prefillSec) : 0,
      gpu_kv_cache_usage: round3(Math.min(1, kv / engine.kvCacheTokens)),
      cpu_kv_cache_usage: 0,
      input_tokens: this.seq.promptTokens,
      output_tokens: this.seq.generated,
      pending: this.ctx.pendingJobs() + this.run.engine.waitingCount,
      running: this.run.engine.decodingCount,
      swapped: 0,
      stream_index: this.items.length - 1,
      scenario: 'engine',
    });
  }

  private finish(nowMs: number): void {
    const req = this.req;
    let output: unknown;
    if (req.kind === 'openai') {
      this.flush(nowMs);
      output = completion(this.head as OpenAiHead, this.text, 'length', usageOf(req.promptTokens, this.seq.generated));
    } else {
      if (req.stream) this.flush(nowMs);
      else this.emitItem([this.text], nowMs);
      output = this.items;
    }
    this.ctx.done({ kind: 'output', output, refresh: false });
  }
}

export class EngineExecution {
  private readonly runs = new Map<string, WorkerRun>();

  constructor(
    readonly engine: LlmEngine,
    /** Told of every output token (billing: cost per million tokens). */
    private readonly onTokens: (tokens: number) => void,
  ) {}

  /** True when the engine serves a job with this input. */
  accepts(input: Record<string, unknown>): boolean {
    return isEngineInput(input);
  }

  /** The OpenAI route's request, or why the engine refuses it (answered 400 before any job). */
  parseOpenAi(route: string, body: unknown): EngineParse {
    return parseOpenAi(route, body, this.engine);
  }

  /** Requests on the engines of all workers (for tests and the info route). */
  held(): number {
    let n = 0;
    for (const r of this.runs.values()) n += r.engine.size;
    return n;
  }

  /** Run one job on worker `workerId`'s engine. Answers the ms until it ends when known now, else Infinity. */
  run(ctx: EngineRunContext, workerId: string): number {
    const p = parseEngineInput(ctx.input, this.engine);
    if (!p.ok) {
      ctx.done({ kind: 'error', error: p.error, refresh: false });
      return 0;
    }
    if (p.request.kind === 'models') {
      ctx.done({ kind: 'output', output: modelsList(this.engine.modelName, Math.floor(ctx.clock.now() / 1000), 'vllm'), refresh: false });
      return 0;
    }
    let run = this.runs.get(workerId);
    if (run === undefined) {
      run = new WorkerRun(this, workerId, ctx.clock);
      this.runs.set(workerId, run);
    }
    const job = new EngineJob(run, ctx, p.request);
    run.engine.add(job.seq);
    ctx.runTimer = job;
    if (!run.engine.busy && !run.ending && run.beginAtMs === undefined) {
      // parallel (node-llama-cpp): the step begins with this request alone.
      if (this.engine.scheduler === 'parallel') {
        this.begin(run, ctx.clock.now());
        return Infinity;
      }
      run.beginAtMs = ctx.clock.now();
      // A zero-delay timer, not a microtask: it runs after every event already due at this
      // instant, so requests arriving at the same emulated time share the first prefill.
      run.timer = ctx.clock.setTimerFor(0, this.beginDeferred, run);
    }
    return Infinity;
  }

  /** A job left its worker's engine early (cancelled, timed out, expired, its worker gone). */
  leave(run: WorkerRun, seq: EngineSeq<EngineJob>): void {
    run.engine.remove(seq);
    if (run.engine.size > 0 || run.ending) return;
    run.timer?.cancel();
    run.timer = undefined;
    this.forget(run);
  }

  private forget(run: WorkerRun): void {
    if (this.runs.get(run.workerId) === run) this.runs.delete(run.workerId);
  }

  private readonly beginDeferred = (run: WorkerRun): void => {
    const at = run.beginAtMs ?? run.clock.now();
    run.beginAtMs = undefined;
    run.timer = undefined;
    if (!run.engine.busy) this.begin(run, at);
  };

  /** Begin the worker's next step at `startMs` (its timer counts from then), or forget an empty worker. */
  private begin(run: WorkerRun, startMs: number): void {
    const step = run.engine.begin();
    if (step === undefined) {
      if (run.engine.size === 0) this.forget(run);
      return;
    }
    run.timer = run.clock.setTimerFor(startMs + step.durationMs - run.clock.now(), this.onStepEnd, run);
  }

  private readonly onStepEnd = (run: WorkerRun): void => {
    run.timer = undefined;
    const nowMs = run.clock.now();
    run.ending = true;
    try {
      const got = run.engine.end();
      if (got.length > 0) this.onTokens(got.length);
      for (const s of got) s.owner.token(nowMs);
    } finally {
      run.ending = false;
    }
    this.begin(run, nowMs);
  };

  /** Forget every worker's engine (reset: the endpoint has stopped every job first). */
  reset(): void {
    for (const r of this.runs.values()) r.timer?.cancel();
    this.runs.clear();
  }
}
