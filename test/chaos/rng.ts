/**
 * The fault campaign's only source of randomness: a seeded generator (mulberry32), so that a run is
 * replayed by its seed. Every random choice of a run (add-ons, operations, fault kinds and moments)
 * is drawn from it, in program order.
 *
 * Test-only code.
 *
 * @module
 */

/** A seeded pseudo-random generator. */
export interface Rng {
  /** The seed it started from. */
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** A token of lowercase letters and digits, `length` long. */
  token(length: number): string;
}

/** A generator that always yields the same sequence for the same `seed` (an unsigned 32-bit integer). */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    seed: seed >>> 0,
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[int(0, items.length - 1)] as T;
    },
    chance: (p) => next() < p,
    token: (length) => {
      const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
      let s = "";
      for (let i = 0; i < length; i++) s += alphabet[int(0, alphabet.length - 1)];
      return s;
    },
  };
}
