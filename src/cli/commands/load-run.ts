// The work of `qbench load` (declared in load.ts): resolve the target and the shard, run the
// scenarios with live progress, and write every report.
import { usageError } from '../../errors.js';
import { emulatorConfigOf } from '../emulator-config-flags.js';
import type { ExitCode } from '../../exit-codes.js';
import { resolveTarget } from '../../load/target.js';
import { runLoad } from '../../load/run-load.js';
import { createProgressPrinter } from '../../load/progress.js';
import { runReportDir } from '../../report/report-dir.js';
import { watchRun } from '../watch.js';
import { parseMetricsFlags } from '../../metrics/endpoints.js';
import { apiKeyEnvName } from '../../target/index.js';
import type { CliIo, Invocation } from '../command.js';
import type { loadOptions } from '../load-options.js';
import type { Flags } from '../options.js';
import { resolveShard, resolveStartAt } from '../../load/sharding.js';

/** `key=value` items of a repeatable flag as pairs; values JSON when they parse (`--set`), else text. */
function pairs(items: readonly string[], parseValue: boolean): [string, unknown][] {
  return items.map((item) => {
    const eq = item.indexOf('=');
    const key = item.slice(0, eq);
    const raw = item.slice(eq + 1);
    if (!parseValue) return [key, raw];
    try {
      return [key, JSON.parse(raw) as unknown];
    } catch {
      return [key, raw];
    }
  });
}

export async function runLoadCommand(f: Flags<typeof loadOptions>, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const files = f.scenarios !== undefined && f.scenarios.length > 0 ? f.scenarios : f.configScenarios;
  if (files === undefined || files.length === 0) throw usageError('invalid options for qbench load:\n  ✖ name at least one scenario file (or list them under load.scenarios in the config file)');
  const apiKeyEnv = apiKeyEnvName(f.apiKeyEnv, io.env);
  const set = pairs(f.set, true);
  const params = Object.fromEntries(pairs(f.param, false)) as Record<string, string>;
  const metrics = parseMetricsFlags(f.metrics);

  const emulatorConfig = await emulatorConfigOf(f, '--time-scale, --scale-rate-windows and --emulator-config');

  const shard = resolveShard(f.shard, f.shards, io.env);
  const startAtMs = resolveStartAt(f.startAt, io.env);
  const resolved = await resolveTarget({ target: f.target, endpointId: f.endpoint, apiKey: io.env[apiKeyEnv], emulator: emulatorConfig });
  const progress = createProgressPrinter(io.stdout, io.isTty);
  const dir = await runReportDir(new Date(), f.out);
  const t = resolved.target;
  const watch = await watchRun({
    dir,
    command: 'load',
    argv: invocation.commandLine,
    options: { ...f, set, params, ...(shard ? { shard } : {}), ...(startAtMs !== undefined ? { startAt: new Date(startAtMs).toISOString() } : {}) },
    target: { kind: t.kind, queueUrl: t.queueUrl, endpointId: t.endpointId, timeScale: t.timeScale },
    env: io.env,
    labels: shard ? { shard: `${shard.index}/${shard.count}` } : undefined,
    log: (line) => io.stderr(`${line}\n`),
    metrics,
    shard,
  });
  try {
    const result = await runLoad({
      files,
      target: resolved.target,
      overrides: {
        ...(f.durationMs !== undefined ? { durationMs: f.durationMs } : {}),
        ...(f.ratePerSec !== undefined ? { ratePerSec: f.ratePerSec } : {}),
        ...(f.vus !== undefined ? { vus: f.vus } : {}),
        ...(f.threads !== undefined ? { threads: f.threads } : {}),
        ...(f.maxRequests !== undefined ? { maxRequests: f.maxRequests } : {}),
        set,
      },
      params,
      only: f.only,
      shard,
      startAtMs,
      strict: f.strict,
      signal: io.signal,
      observer: watch.load,
      command: invocation.commandLine,
      onProgress: (p) => progress.update(p),
      log: (line) => {
        progress.done();
        io.stderr(`${line}\n`);
      },
      onScenarioDone: (r) => {
        progress.done();
        io.stdout(`${r.name}: ${r.verdict.status.toUpperCase()} ${r.verdict.summary}\n`);
      },
    });
    progress.done();
    await watch.finish(result);
    // The renderers are imported after the run: nothing before the first request waits on them.
    const [{ writeAllReports }, { renderConsole }] = await Promise.all([import('../../report/write-all.js'), import('../../report/render/console.js')]);
    const written = await writeAllReports(result, dir, { updateLatest: f.out === undefined });
    io.stdout(renderConsole(result));
    io.stdout(`\nreports: ${written.dir}\n`);
    // A shard's verdict covers its share only: the run's verdict is formed by qbench merge.
    // It fails the process only when it could not run (bad input, internal error).
    if (shard && (result.overall.status === 'pass' || result.overall.status === 'fail' || result.overall.status === 'invalid')) {
      io.stdout(`shard ${shard.index}/${shard.count} done (its own verdict ${result.overall.status.toUpperCase()} covers its share only); qbench merge forms the run's verdict\n`);
      return 0;
    }
    return result.overall.exitCode as ExitCode;
  } catch (e) {
    await watch.abandon();
    throw e;
  } finally {
    await resolved.close();
  }
}
