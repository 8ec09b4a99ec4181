// How a target's time runs: the in-process emulator's default scale (emulated ms per real ms),
// real time on anything else, and the real length of a §8 rate window, which an emulator
// shortens only when it runs its rate windows on the scaled clock too.
import { RATE_WINDOW_MS } from '../spec/index.js';

/** Emulated ms per real ms of `--target emulator` unless --time-scale says otherwise: 30 min of retention in 30 s. */
export const DEFAULT_EMULATOR_TIME_SCALE = 60;
/** The scale of a target that advertises none (a real deployment): real time. */
export const REAL_TIME_SCALE = 1;

/** Real ms of one §8 rate window at `timeScale`; the spec's window unless the windows are scaled. */
export function rateWindowRealMs(timeScale: number, scaleRateWindows: boolean): number {
  return scaleRateWindows ? RATE_WINDOW_MS / timeScale : RATE_WINDOW_MS;
}
