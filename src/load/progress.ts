// Live progress of a load run: on a terminal one line rewritten in place every
// second (elapsed, start rate, in-flight, p50/p99 so far, 429s); otherwise, or under CI,
// a plain line every few seconds so logs stay readable.
import type { ProgressSnapshot } from './engine.js';

export interface ProgressPrinter {
  update(p: ProgressSnapshot): void;
  /** End the live line (before other output). */
  done(): void;
}

const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${ms.toFixed(1)}ms`);

export function formatProgress(p: ProgressSnapshot): string {
  const pct = p.plannedMs > 0 ? Math.min(100, Math.floor((p.elapsedMs / p.plannedMs) * 100)) : 0;
  return (
    `${p.scenario} ${(p.elapsedMs / 1000).toFixed(0)}s/${(p.plannedMs / 1000).toFixed(0)}s ${pct}%` +
    ` | ${p.startedPerSec}/s started | in-flight ${p.inFlight} | reqs ${p.requests}` +
    ` | p50 ${fmtMs(p.p50Ms)} p99 ${fmtMs(p.p99Ms)} | 429 ${p.status429} | errors ${p.errors}` +
    (p.dropped > 0 ? ` | dropped ${p.dropped}` : '')
  );
}

export function createProgressPrinter(write: (text: string) => void, isTty: boolean, plainEveryMs = 5000): ProgressPrinter {
  let live = false;
  // Plain lines start after one period: a line at 1 s holds no data yet.
  let lastPlainMs = 0;
  return {
    update(p) {
      if (isTty) {
        write(`\r\x1b[2K${formatProgress(p)}`);
        live = true;
      } else if (p.elapsedMs - lastPlainMs >= plainEveryMs) {
        lastPlainMs = p.elapsedMs;
        write(`${formatProgress(p)}\n`);
      }
    },
    done() {
      if (live) write('\r\x1b[2K');
      live = false;
      lastPlainMs = 0;
    },
  };
}
