// The calibration report (calibration.json; the HTML page renders the same object): what was
// planned and spent, each phase's outcome, each setting measured or given, each fit with its
// samples and goodness of fit, the burst's /health timeline, and the emulator config written.
import type { Distribution, LlmEngine, StreamBatch } from '../deployment/index.js';
import type { GoodnessOfFit, Precision } from './fit.js';
import type { PartFit, SettingValue, TimingPart } from './infer.js';
import type { ThrottleEstimate } from './throttle.js';
import type { BurstObservation, Observations, PhaseOutcome } from './observations.js';
import type { CalibrationPlan, CostEstimate } from './plan.js';
import type { FittedRates, LlmFit } from './llm-fit.js';
import type { LlmProbeResult } from './llm-probe.js';

export const CALIBRATION_SCHEMA_VERSION = 1;

export interface FitEntry {
  readonly part: TimingPart;
  readonly classId?: string;
  /** Samples fitted (outliers left out). */
  readonly n: number;
  readonly samplesMs: readonly number[];
  /** Far outliers left out of the fit (see splitOutliers in fit.ts). */
  readonly outliersMs: readonly number[];
  readonly dist: Distribution;
  readonly gof: GoodnessOfFit;
  /** How precisely the samples place the fit: its median's 95% interval, a mixture's share. */
  readonly precision: Precision;
  readonly why: string;
  readonly derivation: string;
  /** Every candidate tried, with its KS statistic (and BIC for parametric ones). */
  readonly candidates: ReadonlyArray<{ readonly kind: Distribution['kind']; readonly ks: number; readonly accepted: boolean; readonly bic?: number }>;
}

export interface CalibrationReport {
  readonly schemaVersion: typeof CALIBRATION_SCHEMA_VERSION;
  readonly kind: 'qbench-calibration';
  readonly qbenchVersion: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly command: readonly string[];
  /** The queue URL and endpoint (never the key). */
  readonly target: { readonly queueUrl: string; readonly endpointId: string };
  /** Target ms per real ms, and whether the user gave it (a scaled emulator) or it is the service's 1. */
  readonly timeScale: { readonly value: number; readonly source: 'given' | 'default' };
  readonly budget: {
    readonly plan: CalibrationPlan;
    readonly cost: CostEstimate;
    readonly jobsSent: number;
    readonly realMs: number;
    /** Jobs still unfinished when the run stopped, cancelled then. */
    readonly cancelledAtEnd: number;
  };
  readonly rttRealMs: number;
  readonly phases: readonly PhaseOutcome[];
  readonly jobs: { readonly total: number; readonly completed: number; readonly byPhase: Readonly<Record<string, number>> };
  readonly settings: readonly SettingValue[];
  readonly fits: readonly FitEntry[];
  /** Starts that waited for GPU capacity (the twin's timing.throttle, its wait the `throttle` fit); absent: none watched. */
  readonly throttle?: ThrottleEstimate;
  readonly idleTimeoutSamplesMs: readonly number[];
  readonly burst: BurstObservation | undefined;
  /** A first burst the workers up took whole (no worker started): `burst` is the larger one sent after it. */
  readonly absorbedBurst?: BurstObservation;
  readonly notes: readonly string[];
  /** --llm: the LLM probe's observations and the engine rates fitted to them (absent when it did not run or stopped). */
  readonly llm?: LlmCalibration;
  /** What <out>/emulator.json holds. */
  readonly emulatorConfig: Readonly<Record<string, unknown>>;
}

/** The LLM probe (llm-probe.ts) in the report: what it measured, the fit, and the engine written into the twin. */
export interface LlmCalibration {
  readonly requestsSent: number;
  readonly ttft: LlmProbeResult['ttft'];
  readonly decode: LlmProbeResult['decode'];
  readonly context?: LlmProbeResult['context'];
  readonly fit: LlmFit;
  /** Ms of a lone request's TTFT the twin spends outside its engine (queue timing), taken off the fitted prefillBaseMs. */
  readonly queueMs?: number;
  /**
   * Written into deployments.<id>.engine of the twin (the engine's other settings at their
   * defaults): the fitted rates (4 significant digits), the chunk batching the streams showed,
   * and the scheduling given with --llm-scheduler and --llm-batch-tokens.
   */
  readonly engine: FittedRates & { readonly streamBatch: StreamBatch } & Partial<Pick<LlmEngine, 'scheduler' | 'maxBatchedTokens'>>;
}

export function fitEntry(f: PartFit): FitEntry {
  const out = new Set(f.fit.outliersMs);
  const kept = f.samplesMs.filter((x) => !out.has(x));
  return {
    part: f.part,
    ...(f.classId !== undefined ? { classId: f.classId } : {}),
    n: kept.length,
    samplesMs: kept,
    outliersMs: f.fit.outliersMs,
    dist: f.fit.dist,
    gof: f.fit.gof,
    precision: f.precision,
    why: f.fit.why,
    derivation: f.derivation,
    candidates: f.fit.candidates.map((c) => ({ kind: c.kind, ks: c.gof.ks, accepted: c.gof.accepted, ...(c.bic !== undefined ? { bic: c.bic } : {}) })),
  };
}

export function jobCounts(obs: Observations): CalibrationReport['jobs'] {
  const byPhase: Record<string, number> = {};
  for (const j of obs.jobs) byPhase[j.phase] = (byPhase[j.phase] ?? 0) + 1;
  return { total: obs.jobs.length, completed: obs.jobs.filter((j) => j.status === 'COMPLETED').length, byPhase };
}
