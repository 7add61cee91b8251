/**
 * A counting semaphore, to bound how many helm processes run at once.
 *
 * @module
 */

/** A counting semaphore: at most `limit` functions passed to {@link run} run at once, the others wait in order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  /** @param limit - how many may run at once (>= 1) */
  public constructor(public readonly limit: number) {}

  /** Runs `fn` once a slot is free; the slot is released when `fn` settles. */
  public async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.active--;
    }
  }
}
