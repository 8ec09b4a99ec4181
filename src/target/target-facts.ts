// What a command adapts to once its target is resolved: emulator or real deployment, the time
// scale, the real rate window, the faults in force and the whole info document, all taken from
// the one reader of /_qbench/info. A real target gets real time and the spec's windows.
import { QbenchError } from '../errors.js';
import type { EmulatorInfoDocument } from '../spec/index.js';
import { readEmulatorInfo, type ReadInfoOptions } from './emulator-info.js';
import { REAL_TIME_SCALE, rateWindowRealMs } from './time-scale.js';

export interface TargetFacts {
  readonly kind: 'emulator' | 'remote';
  /** Emulated ms per real ms (1 on a real target). */
  readonly timeScale: number;
  /** Real ms of one §8 rate window on this target. */
  readonly rateWindowRealMs: number;
  /** Names of the emulator's faults in force; empty on a real target. */
  readonly faults: readonly string[];
  /** The emulator's document, for the facts a command reads beyond these (advertised limits). */
  readonly info?: EmulatorInfoDocument;
}

export const REMOTE_FACTS: TargetFacts = { kind: 'remote', timeScale: REAL_TIME_SCALE, rateWindowRealMs: rateWindowRealMs(REAL_TIME_SCALE, false), faults: [] };

export function emulatorFacts(info: EmulatorInfoDocument): TargetFacts {
  return { kind: 'emulator', timeScale: info.timeScale, rateWindowRealMs: rateWindowRealMs(info.timeScale, info.scaleRateWindows), faults: info.faults.map((f) => f.name), info };
}

export interface ReadFactsOptions extends ReadInfoOptions {
  /**
   * A target that does not answer at all: 'remote' goes on with a real target's facts (its
   * requests will tell), 'error' stops with QB_ERR_UNREACHABLE before anything is judged.
   */
  readonly unreachable: 'remote' | 'error';
}

/** Read the facts of the target at `queueUrl` (an emulator's document that does not parse is an exit 2 error). */
export async function readTargetFacts(queueUrl: string, o: ReadFactsOptions): Promise<TargetFacts> {
  const reading = await readEmulatorInfo(queueUrl, o);
  switch (reading.kind) {
    case 'emulator':
      return emulatorFacts(reading.info);
    case 'not-emulator':
      return REMOTE_FACTS;
    case 'unreachable':
      if (o.unreachable === 'error') throw new QbenchError('QB_ERR_UNREACHABLE', `target unreachable: ${queueUrl} (${reading.error})`);
      return REMOTE_FACTS;
  }
}
