// Per-second prices of a serverless worker by GPU type, per GPU: "flex" for workers that scale,
// "active" for workersMin workers. Taken from an earlier version of the public price page as
// quoted in shared/spec/DEPLOYMENT-FACTS.md; prices change, so a deployment may override them.
import type { GpuPrice } from './schema.js';

/**
 * When the default table was taken into qbench. DEPLOYMENT-FACTS.md dates its list only as "an
 * earlier version of the public price page"; this is the date of that file.
 */
export const PRICE_TABLE_DATE = '2026-11-25';
export const PRICE_TABLE_SOURCE = 'an earlier version of the public serverless price page, as quoted in shared/spec/DEPLOYMENT-FACTS.md';

/** The GPU type a deployment is priced as when it names none. */
export const DEFAULT_GPU_TYPE_ID = '4090 PRO';

export const DEFAULT_PRICES: Readonly<Record<string, GpuPrice>> = Object.freeze({
  L4: { flexPerS: 0.00019, activePerS: 0.00013 },
  A5000: { flexPerS: 0.00019, activePerS: 0.00013 },
  '3090': { flexPerS: 0.00019, activePerS: 0.00013 },
  '4090 PRO': { flexPerS: 0.00031, activePerS: 0.00021 },
  'A100 80GB': { flexPerS: 0.00076, activePerS: 0.0006 },
  'H100 PRO': { flexPerS: 0.00116, activePerS: 0.00093 },
  'H200 PRO': { flexPerS: 0.00155, activePerS: 0.00124 },
  B200: { flexPerS: 0.0024, activePerS: 0.0019 },
});

/** The price of `gpuTypeId`, overrides first; undefined when neither table knows it. */
export function priceOf(gpuTypeId: string, overrides?: Readonly<Record<string, GpuPrice>>): GpuPrice | undefined {
  return overrides?.[gpuTypeId] ?? DEFAULT_PRICES[gpuTypeId];
}
