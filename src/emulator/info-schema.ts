// The readers' contract with GET /_qbench/info: the fields a client outside the emulator's
// process reads to adapt to it (time scale, rate-window scaling, endpoints, faults in force),
// picked from the one schema of the document (src/spec/schemas/emulator-info.ts) that
// info-routes.ts `infoDocument` is typed by. Every other field passes through.
import type { z } from 'zod';
import { EmulatorInfoDocument } from '../spec/index.js';

export const EMULATOR_INFO_NAME = 'qbench-emulator';

/** The facts readers adapt to, picked from the one document schema; every other field passes through. */
export const EmulatorInfoFacts = EmulatorInfoDocument.pick({ name: true, version: true, timeScale: true, scaleRateWindows: true, endpoints: true, faults: true }).loose();
export type EmulatorInfoFacts = z.infer<typeof EmulatorInfoFacts>;

/** Does this JSON body claim to be the emulator's info document (whatever its shape)? */
export function claimsEmulatorInfo(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { name?: unknown }).name === EMULATOR_INFO_NAME;
}
