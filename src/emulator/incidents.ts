// Internal errors of the emulator: an exception while serving a request, in a timer of the
// emulator clock, or while preparing a webhook. None ends the process: each is counted here
// (GET /_qbench/info `internalErrors`) and logged on stderr with its kind and route, the
// message passed through the secret redaction so that no key reaches the log.
import { redactSecrets } from '../errors.js';

export type IncidentKind = 'request' | 'timer' | 'webhook';

export interface IncidentCounts {
  total: number;
  request: number;
  timer: number;
  webhook: number;
}

export class Incidents {
  readonly counts: IncidentCounts = { total: 0, request: 0, timer: 0, webhook: 0 };

  constructor(private readonly log: (line: string) => void = (line) => process.stderr.write(line)) {}

  record(kind: IncidentKind, e: unknown, where?: string): void {
    this.counts.total += 1;
    this.counts[kind] += 1;
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    const line = `qbench emulator: internal error (${kind}${where !== undefined ? ` ${where}` : ''}): ${what.slice(0, 300)}; still serving\n`;
    try {
      this.log(redactSecrets(line));
    } catch {
      // A closed stderr must not turn a counted incident into a crash.
    }
  }
}
