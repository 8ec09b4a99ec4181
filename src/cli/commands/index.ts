// Every CLI command, in the order --help lists them: its yargs command string and help line,
// and its declaration (src/cli/commands/<name>.ts: options as data, examples), imported when
// the command is parsed. Listing the commands loads none of them; a command's work
// (<name>-run.ts) is imported by its declaration's `run` only when it runs.
import type { CommandEntry } from '../command.js';

export const COMMANDS: readonly CommandEntry[] = [
  { command: 'start', describe: 'Run the main job on the embedded emulator (quick conformance, a short load mix, a short fuzz) and write every report', load: async () => (await import('./start.js')).startCommand },
  { command: 'emulate', describe: 'Serve the queue-endpoint emulator on 127.0.0.1 (http://host:port/v2/<endpoint_id>/...)', load: async () => (await import('./emulate.js')).emulateCommand },
  { command: 'worker', describe: 'Run a queue worker (worker protocol) with a handler module against the emulator or a service', load: async () => (await import('./worker.js')).workerCommand },
  { command: 'load [scenarios..]', describe: 'Run load scenarios (suites/load/*.ts or your own) against a target and write the reports', load: async () => (await import('./load.js')).loadCommand },
  { command: 'llm', describe: 'LLM load on one endpoint over the OpenAI route (SSE), /run + /stream and /runsync: TTFT, ITL, TPOT, tokens/s and goodput against SLOs, per path and load level', load: async () => (await import('./llm.js')).llmCommand },
  { command: 'report <result> [out]', describe: 'Re-render a saved result: one format to [out] (or stdout), or every format into the directory [out]', load: async () => (await import('./report.js')).reportCommand },
  { command: 'compare <baseline> <candidate>', describe: 'Compare a candidate run with a baseline: percentile changes with bootstrap confidence intervals, throughput and error rates; exit 1 on a significant regression', load: async () => (await import('./compare.js')).compareCommand },
  { command: 'merge <results..>', describe: 'Merge results of the same scenarios from several generators (shards) losslessly; thresholds are evaluated on the whole', load: async () => (await import('./merge.js')).mergeCommand },
  { command: 'kube <action> <scenario>', describe: 'Print the Kubernetes manifests (Indexed Job of shards, merge Job, results volume) of a load run split into shards', load: async () => (await import('./kube.js')).kubeCommand },
  { command: 'fuzz', describe: 'Property-based fuzzing of the validation rules and model-based testing of the job state machine', load: async () => (await import('./fuzz.js')).fuzzCommand },
  { command: 'check', describe: 'Run the conformance suite against a target (URL or the in-process emulator)', load: async () => (await import('./check.js')).checkCommand },
  { command: 'calibrate', describe: 'Measure a deployment by URL within a budget and write a twin: an emulator config that reproduces it, with a calibration report', load: async () => (await import('./calibrate.js')).calibrateCommand },
  { command: 'plan', describe: 'Find the cheapest scaling settings that meet your SLOs: simulate a twin over a grid of settings, on worker threads, in seconds', load: async () => (await import('./plan.js')).planCommand },
  { command: 'init', describe: 'Write a commented qbench.config.ts, an example scenario and a GitHub Actions workflow (.github/workflows/qbench.yml)', load: async () => (await import('./init.js')).initCommand },
];
