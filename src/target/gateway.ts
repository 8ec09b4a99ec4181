// No answer from the target itself: the connection broke (no status; the conformance probe
// writes it as 0) or a gateway answered for it (502, 503, 504). A proxy that is still
// uploading when the target refuses a large body early and closes answers so: what the
// target said was not seen. Checks and scenarios that judge an answer treat these as a
// precondition not reached, never as the target's verdict.

/** Statuses that are a gateway's, not the target's (0: the connection broke). */
export const GATEWAY_STATUSES: readonly number[] = [0, 502, 503, 504];

/** True when `status` (null: no answer at all) is not the target's own answer. */
export function notTheTargetsAnswer(status: number | null): boolean {
  return status === null || GATEWAY_STATUSES.includes(status);
}
