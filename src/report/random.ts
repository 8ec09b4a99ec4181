// Seeded pseudo-random numbers for reproducible statistics (bootstrap resampling in compare,
// synthetic samples in tests): mulberry32, plus normal, gamma and beta variates.

import type { Rng } from '../deployment/random.js';

// One mulberry32 for the whole tool: the deployment model owns it (src/deployment/random.ts, it sits lower).
export { seededRng, type Rng } from '../deployment/random.js';

/** Standard normal variate (Box-Muller). */
export function normal(rng: Rng): number {
  let u = rng.next();
  while (u <= Number.MIN_VALUE) u = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** Gamma(shape, 1) variate (Marsaglia-Tsang; shape < 1 boosted). */
export function gamma(rng: Rng, shape: number): number {
  if (shape < 1) return gamma(rng, shape + 1) * rng.next() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.next();
    if (u < 1 - 0.0331 * x ** 4) return d * v;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Beta(a, b) variate. */
export function beta(rng: Rng, a: number, b: number): number {
  const x = gamma(rng, a);
  const y = gamma(rng, b);
  return x / (x + y);
}

/** Log-normal variate with the given median and shape (sigma of the underlying normal). */
export function logNormal(rng: Rng, median: number, sigma: number): number {
  return median * Math.exp(sigma * normal(rng));
}
