// One fitted timing part of a calibration: which part, its samples, the fit and how precisely
// the samples place it. infer.ts builds these; throttle.ts and the report read them.
import type { Fit, Precision } from './fit.js';

export type TimingPart = 'dispatch' | 'execution' | 'overhead' | 'coldStart' | 'throttle' | 'firstChunk' | 'chunkGap';

export interface PartFit {
  readonly part: TimingPart;
  /** The input class, for execution by class. */
  readonly classId?: string;
  /** Samples in target ms, as fitted. */
  readonly samplesMs: readonly number[];
  readonly fit: Fit;
  /** How precisely the samples (outliers left out) place the fit. */
  readonly precision: Precision;
  /** Which jobs the samples come from and how they were derived. */
  readonly derivation: string;
}
