// Deterministic utilisation figures of a running pod (§2.6 runtime.gpus and runtime.container),
// a pure function of its uptime so that tests can assert them: idle while the container
// starts, then a steady working load with a slow, bounded wobble per GPU.

/** Seconds after a (re)start during which the container is still loading and the GPUs idle. */
export const WARMUP_SECONDS = 10;

export interface PodUtilisation {
  readonly gpus: readonly { readonly gpuUtilPercent: number; readonly memoryUtilPercent: number }[];
  readonly cpuPercent: number;
  readonly memoryPercent: number;
}

/** Integer percentages in 0..100 for a pod with `gpuCount` GPUs that has been up `uptimeSeconds`. */
export function podUtilisation(uptimeSeconds: number, gpuCount: number): PodUtilisation {
  const t = Math.max(0, Math.floor(uptimeSeconds));
  const warm = t >= WARMUP_SECONDS;
  const gpus = Array.from({ length: gpuCount }, (_, i) => ({
    // 60..99 once warm: a triangle wave of period 40 s, shifted per GPU.
    gpuUtilPercent: warm ? 60 + triangle(t + 7 * i, 40) : 0,
    // Model weights load during warm-up (up to 70%), then the KV cache fills to at most 90%.
    memoryUtilPercent: warm ? Math.min(90, 70 + Math.floor((t - WARMUP_SECONDS) / 30)) : Math.floor((70 * t) / WARMUP_SECONDS),
  }));
  return {
    gpus,
    cpuPercent: warm ? 20 + triangle(t, 20) : 100,
    memoryPercent: Math.min(85, 30 + Math.floor(t / 60)),
  };
}

/** A triangle wave over integers: rises by 2 per step from 0, then falls back; values 0..period-1. */
function triangle(t: number, period: number): number {
  const half = period / 2;
  const phase = t % period;
  return phase < half ? phase * 2 : (period - phase) * 2 - 1;
}
