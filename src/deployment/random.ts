// The deployment model's seeded generator: mulberry32 streams, one per timing part and
// endpoint (derived from the endpoint's seed and a label), so that a part's samples do not
// shift when another part draws more or fewer numbers: the same seed gives the same timings.

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
}

/** mulberry32: one 32-bit state, fast; the same seed gives the same stream. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return {
    next(): number {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** A seed for the stream `label` of `seed` (FNV-1a over the label, mixed with the seed). */
export function streamSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i += 1) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // A final avalanche so that nearby seeds give unrelated streams.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return h >>> 0;
}
