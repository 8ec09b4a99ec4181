// What watches a run from the CLI while it runs: its journal in the report directory (every
// command that measures) and, for load, its live metrics. Opened once the target is resolved,
// finished with the run's verdict, abandoned when the run failed before it planned anything.
import { rm, rmdir } from 'node:fs/promises';
import { loadJournal } from '../journal/load-journal.js';
import { openJournal, runIdFrom, type OpenJournalInput } from '../journal/open.js';
import { journalMaxBytes, type JournalWriter } from '../journal/writer.js';
import { observeAll, type LoadObserver } from '../load/observer.js';
import { runLabels } from '../metrics/labels.js';
import type { MetricsEndpoint } from '../metrics/endpoints.js';
import type { JournalSection } from '../journal/records.js';
import type { CheckResult, FuzzProperty, QbenchResult, TargetInfo } from '../result/model.js';

export interface WatchInput {
  readonly dir: string;
  readonly command: OpenJournalInput['command'];
  readonly argv: readonly string[];
  readonly options: Readonly<Record<string, unknown>>;
  readonly target: TargetInfo;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly log: (line: string) => void;
  /** Live metrics endpoints (`--metrics`), for a load run. */
  readonly metrics?: readonly MetricsEndpoint[] | undefined;
  readonly shard?: { readonly index: number; readonly count: number } | undefined;
}

export interface RunWatch {
  readonly runId: string;
  readonly journal: JournalWriter;
  /** The load run's observer (journal buckets, later live metrics). */
  readonly load: LoadObserver;
  /** The units a section will run, in order. */
  plan(section: JournalSection, units: readonly string[]): void;
  /** Facts of a section its rebuilt result needs (conformance coverage, fuzz seed). */
  facts(section: JournalSection, facts: Record<string, unknown>): void;
  check(result: CheckResult): void;
  property(result: FuzzProperty): void;
  /** The run ended with this result: its verdict closes the journal. */
  finish(result: QbenchResult): Promise<void>;
  /** The run threw: keep the journal when it recorded work, remove it otherwise. */
  abandon(): Promise<void>;
}

export async function watchRun(i: WatchInput): Promise<RunWatch> {
  const runId = runIdFrom(i.env);
  const journal = await openJournal({ dir: i.dir, runId, command: i.command, argv: i.argv, options: i.options, target: i.target, labels: i.labels, onError: i.log, maxBytes: journalMaxBytes(i.env) });
  let planned = false;
  const plan = (section: JournalSection, units: readonly string[]): void => {
    planned = true;
    journal.append({ type: 'plan', atMs: Date.now(), section, units: [...units] });
  };
  // The exporter and its SDKs load only for a run that names an endpoint.
  const live = i.metrics && i.metrics.length > 0 ? await (await import('../metrics/live.js')).LiveMetrics.open(i.metrics, runLabels(runId, i.shard, i.target.queueUrl, i.target.endpointId)) : undefined;
  const load = observeAll([{ ...loadJournal(journal), planned: (names) => plan('load', names) }, live?.observer]) ?? {};
  const closeLive = async (): Promise<void> => {
    for (const line of (await live?.close()) ?? []) i.log(line);
  };
  return {
    runId,
    journal,
    load,
    plan,
    facts: (section, facts) => journal.append({ type: 'section', atMs: Date.now(), section, facts }),
    check: (result) => journal.append({ type: 'check', atMs: Date.now(), result }),
    property: (result) => journal.append({ type: 'property', atMs: Date.now(), result }),
    finish: async (result) => {
      await closeLive();
      journal.append({ type: 'end', atMs: Date.now(), overall: result.overall });
      await journal.close();
    },
    abandon: async () => {
      await closeLive();
      await journal.close();
      if (planned) return;
      await rm(journal.file, { force: true });
      await rmdir(i.dir).catch(() => undefined);
    },
  };
}
