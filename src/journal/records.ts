// The journal's lines: one JSON object per line, `type` first. The run's identity and options
// open it; then what each command measures as it measures it (load: 1 s buckets per shard with
// their HDR histograms encoded; check/fuzz: each finished check or property), each finished
// unit, a heartbeat when quiet, and the overall verdict last. One zod schema reads them back.
import { z } from 'zod';
import { CheckResult, FuzzProperty, LoadScenarioResult, MachineInfo, OUTCOME_CLASSES, OutcomeCounts, OverallVerdict, ScenarioIdentity, StepSeries, TargetInfo } from '../result/model.js';

export const JOURNAL_FILE = 'journal.ndjson';
export const JOURNAL_FORMAT = 'qbench-journal';
/** Bump on a change a reader of the previous version cannot read. */
export const JOURNAL_VERSION = 1;

const ms = z.number().nonnegative();
const count = z.number().int().nonnegative();

/** Which part of a result a unit belongs to. */
export const JournalSection = z.enum(['load', 'conformance', 'fuzz']);
export type JournalSection = z.infer<typeof JournalSection>;

export const RunRecord = z.object({
  type: z.literal('run'),
  format: z.literal(JOURNAL_FORMAT),
  version: z.literal(JOURNAL_VERSION),
  atMs: ms,
  runId: z.string(),
  command: z.enum(['load', 'check', 'fuzz', 'start']),
  /** The command line, secrets redacted. */
  argv: z.array(z.string()),
  /** The options as resolved (no key: it is never part of them). */
  options: z.record(z.string(), z.unknown()),
  target: TargetInfo,
  machine: MachineInfo,
  labels: z.record(z.string(), z.string()).optional(),
  qbenchVersion: z.string(),
});

/** The units a section will run, in order: what is not finished at the end did not run. */
export const PlanRecord = z.object({ type: z.literal('plan'), atMs: ms, section: JournalSection, units: z.array(z.string()) });

const Shard = z.object({ index: count, count: z.number().int().positive(), host: z.string(), identity: ScenarioIdentity, startAt: z.string().optional() });

export const ScenarioStartRecord = z.object({
  type: z.literal('scenario-start'),
  atMs: ms,
  name: z.string(),
  description: z.string(),
  executor: z.string(),
  config: z.record(z.string(), z.unknown()),
  startedAt: z.string(),
  plannedMs: ms,
  threads: z.number().int().positive(),
  shard: Shard.optional(),
});

export const ScheduleRecord = z.object({ type: z.literal('schedule'), atMs: ms, scenario: z.string(), t0EpochMs: z.number() });

const Encoded = z.string();
const StepBucket = z.object({
  counts: OutcomeCounts,
  statusCodes: z.record(z.string(), count),
  started: count,
  latency: Encoded,
  service: Encoded,
  byOutcome: z.partialRecord(z.enum(OUTCOME_CLASSES), Encoded),
  attempts: z.object({ attempts: Encoded, endToEnd: Encoded, gaveUp: count, maxAttempts: count, logical: count }).optional(),
});

/** One shard's 1 s bucket, exactly as the aggregator received it, histograms encoded. */
export const BucketRecord = z.object({
  type: z.literal('bucket'),
  atMs: ms,
  scenario: z.string(),
  bucket: z.object({
    shard: count,
    tSec: count,
    steps: z.record(z.string(), StepBucket),
    trends: z.record(z.string(), Encoded),
    lateness: Encoded,
    scheduled: count,
    startedIterations: count,
    dropped: count,
    iterationsDone: count,
    inFlight: z.number().int(),
    lastStartMs: z.number(),
  }),
});

/**
 * A rewritten journal's stand-in for the buckets of a scenario's final seconds (before
 * `throughSec`): their merged totals and series points (src/journal/compaction.ts).
 */
export const CheckpointRecord = z.object({
  type: z.literal('checkpoint'),
  atMs: ms,
  scenario: z.string(),
  throughSec: count,
  totals: BucketRecord.shape.bucket,
  series: z.array(StepSeries),
});

export const ScenarioRecord = z.object({ type: z.literal('scenario'), atMs: ms, result: LoadScenarioResult });
export const CheckRecord = z.object({ type: z.literal('check'), atMs: ms, result: CheckResult });
export const PropertyRecord = z.object({ type: z.literal('property'), atMs: ms, result: FuzzProperty });
/** Facts a section's result needs that only its end knows (conformance profile, fuzz seed). */
export const SectionRecord = z.object({ type: z.literal('section'), atMs: ms, section: JournalSection, facts: z.record(z.string(), z.unknown()) });
export const AliveRecord = z.object({ type: z.literal('alive'), atMs: ms });
export const EndRecord = z.object({ type: z.literal('end'), atMs: ms, overall: OverallVerdict });

export const JournalRecord = z.discriminatedUnion('type', [
  RunRecord,
  PlanRecord,
  ScenarioStartRecord,
  ScheduleRecord,
  BucketRecord,
  CheckpointRecord,
  ScenarioRecord,
  CheckRecord,
  PropertyRecord,
  SectionRecord,
  AliveRecord,
  EndRecord,
]);
export type JournalRecord = z.infer<typeof JournalRecord>;
export type RunRecord = z.infer<typeof RunRecord>;
export type BucketRecord = z.infer<typeof BucketRecord>;
export type ScenarioStartRecord = z.infer<typeof ScenarioStartRecord>;
export type CheckpointRecord = z.infer<typeof CheckpointRecord>;
