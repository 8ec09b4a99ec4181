// The readers' contract with GET /_qbench/info (built by info-routes.ts `infoDocument`): the
// fields a client outside the emulator's process reads to adapt to it (time scale, rate-window
// scaling, endpoints, faults in force). Every other field passes through unchecked. A test
// parses the emulator's own document with it, so a change on either side fails there.
import { z } from 'zod';

export const EMULATOR_INFO_NAME = 'qbench-emulator';

export const EmulatorInfoFacts = z.looseObject({
  name: z.literal(EMULATOR_INFO_NAME),
  version: z.string(),
  /** Emulated ms per real ms. */
  timeScale: z.number().positive(),
  /** Whether the §8 rate windows run on the scaled clock too. */
  scaleRateWindows: z.boolean(),
  endpoints: z.array(z.string()),
  /** The fault switches in force, each with the clause it breaks (src/emulator/faults.ts). */
  faults: z.array(z.looseObject({ name: z.string(), clause: z.string(), description: z.string() })),
});
export type EmulatorInfoFacts = z.infer<typeof EmulatorInfoFacts>;

/** Does this JSON body claim to be the emulator's info document (whatever its shape)? */
export function claimsEmulatorInfo(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { name?: unknown }).name === EMULATOR_INFO_NAME;
}
