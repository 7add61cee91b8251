/**
 * A typed span of time, converted to milliseconds or to helm's `--timeout` flag only at the edge
 * (style of aws-cdk's `Duration`). Every Duration fits a Node.js timer: one longer than
 * `MAX_TIMER_MS` cannot be made, since such a timer fires at once (after 1 ms).
 *
 * @module
 */

/** The longest delay a Node.js timer waits (2^31 − 1 ms, about 24.8 days): the longest {@link Duration}. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PARSE_RE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART_RE = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/**
 * An immutable, non-negative span of time.
 *
 * @example
 * Duration.minutes(5).toHelmFlag(); // "300s"
 * Duration.parse("1h30m").toSeconds(); // 5400
 */
export class Duration {
  /**
   * A duration of `amount` milliseconds.
   * @param amount - a finite, non-negative number of milliseconds, at most `MAX_TIMER_MS` ms in all
   */
  public static millis(amount: number): Duration {
    return new Duration(amount, "millis");
  }

  /**
   * A duration of `amount` seconds.
   * @param amount - a finite, non-negative number of seconds, at most `MAX_TIMER_MS` ms in all
   */
  public static seconds(amount: number): Duration {
    return new Duration(amount * 1000, "seconds");
  }

  /**
   * A duration of `amount` minutes.
   * @param amount - a finite, non-negative number of minutes, at most `MAX_TIMER_MS` ms in all
   */
  public static minutes(amount: number): Duration {
    return new Duration(amount * 60_000, "minutes");
  }

  /**
   * A duration of `amount` hours.
   * @param amount - a finite, non-negative number of hours, at most `MAX_TIMER_MS` ms in all
   */
  public static hours(amount: number): Duration {
    return new Duration(amount * 3_600_000, "hours");
  }

  /**
   * Parses a Go-style duration string made of `<number><unit>` parts, with units `ms`, `s`, `m`, `h`,
   * e.g. `"5m"`, `"300s"`, `"1h30m"`, `"1.5s"`.
   *
   * @param text - the duration text
   * @param field - the prop being parsed, used in the error message
   * @default field - "duration"
   * @throws RangeError naming `field` when the text is not a duration, or when it is longer than `MAX_TIMER_MS`
   */
  public static parse(text: string, field = "duration"): Duration {
    const ms = Duration.parseMillis(text);
    if (ms === undefined) {
      throw new RangeError(
        `${field} ${JSON.stringify(text)} is invalid: must be a duration such as "300s", "5m" or "1h30m" (units ms, s, m, h)`,
      );
    }
    if (ms > MAX_TIMER_MS) {
      throw new RangeError(
        `${field} ${JSON.stringify(text)} is too long: a timer waits at most ${MAX_TIMER_MS} ms (about 24.8 days)`,
      );
    }
    return new Duration(ms, "parse");
  }

  /**
   * The milliseconds of a duration string (see {@link Duration.parse}), unbounded, or `undefined`
   * when the text is not a duration.
   */
  public static parseMillis(text: string): number | undefined {
    const trimmed = text.trim();
    if (!PARSE_RE.test(trimmed)) return undefined;
    let total = 0;
    for (const match of trimmed.matchAll(PART_RE)) {
      total += Number(match[1]) * (UNIT_MS[match[2] ?? "s"] ?? 1000);
    }
    return total;
  }

  /** Whether `value` is a {@link Duration} (also across copies of this module). */
  public static isDuration(value: unknown): value is Duration {
    return (
      value instanceof Duration ||
      (typeof value === "object" &&
        value !== null &&
        typeof (value as { toMilliseconds?: unknown }).toMilliseconds === "function" &&
        typeof (value as { toHelmFlag?: unknown }).toHelmFlag === "function")
    );
  }

  private readonly ms: number;

  private constructor(ms: number, unit: string) {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`Duration.${unit}() needs a finite, non-negative amount, got ${ms}`);
    }
    if (Math.round(ms) > MAX_TIMER_MS) {
      throw new RangeError(
        `Duration.${unit}() got ${ms} ms, longer than a timer can wait (${MAX_TIMER_MS} ms, about 24.8 days)`,
      );
    }
    this.ms = ms;
  }

  /** The duration in milliseconds (rounded to an integer). */
  public toMilliseconds(): number {
    return Math.round(this.ms);
  }

  /** The duration in seconds (may be fractional). */
  public toSeconds(): number {
    return this.ms / 1000;
  }

  /** The duration as helm's `--timeout` value: whole seconds, rounded up, e.g. `"300s"`. */
  public toHelmFlag(): string {
    return `${Math.ceil(this.ms / 1000)}s`;
  }

  /** Whether the duration is zero. */
  public isZero(): boolean {
    return this.ms === 0;
  }

  /** A short human form, e.g. `"5m"`, `"1h30m"`, `"2.5s"`, `"250ms"`. */
  public toString(): string {
    let rest = Math.round(this.ms);
    if (rest < 1000) return `${rest}ms`;
    let out = "";
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    if (h > 0) out += `${h}h`;
    if (m > 0) out += `${m}m`;
    if (rest > 0) out += `${rest / 1000}s`;
    return out;
  }

  /** JSON form: the {@link Duration.toString} text, which {@link Duration.parse} reads back. */
  public toJSON(): string {
    return this.toString();
  }
}
