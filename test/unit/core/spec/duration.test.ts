/**
 * `Duration`: parsing, helm's flag, the short form, and its bounds (no Duration longer than a timer
 * can wait; no spec duration longer than 24 hours).
 *
 * @module
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SpecError } from "../../../../core/errors.js";
import { Duration } from "../../../../core/spec/duration.js";
import { validateSpec } from "../../../../core/spec/index.js";

test("Duration.parse reads minutes, seconds and compound durations", () => {
  assert.equal(Duration.parse("5m").toMilliseconds(), 300_000);
  assert.equal(Duration.parse("300s").toSeconds(), 300);
  assert.equal(Duration.parse("1h30m").toSeconds(), 5400);
  assert.equal(Duration.parse("250ms").toMilliseconds(), 250);
  assert.equal(Duration.parse("1.5s").toMilliseconds(), 1500);
});

test("toHelmFlag gives whole seconds rounded up", () => {
  assert.equal(Duration.minutes(5).toHelmFlag(), "300s");
  assert.equal(Duration.millis(1500).toHelmFlag(), "2s");
});

test("toString gives a short form that parse reads back", () => {
  for (const d of [Duration.minutes(90), Duration.seconds(2), Duration.millis(250), Duration.seconds(61.5)]) {
    assert.equal(Duration.parse(d.toString()).toMilliseconds(), d.toMilliseconds());
  }
  assert.equal(Duration.minutes(90).toString(), "1h30m");
  assert.equal(JSON.stringify({ t: Duration.minutes(5) }), '{"t":"5m"}');
});

test("Duration.parse rejects garbage with a message naming the prop", () => {
  assert.throws(() => Duration.parse("5 minutes", "install.timeout"), {
    name: "RangeError",
    message:
      'install.timeout "5 minutes" is invalid: must be a duration such as "300s", "5m" or "1h30m" (units ms, s, m, h)',
  });
  assert.throws(() => Duration.parse("-5m"), /duration "-5m" is invalid/);
});

test("negative and NaN amounts are rejected", () => {
  assert.throws(() => Duration.seconds(-1), {
    message: "Duration.seconds() needs a finite, non-negative amount, got -1000",
  });
  assert.throws(() => Duration.millis(Number.NaN), {
    message: "Duration.millis() needs a finite, non-negative amount, got NaN",
  });
});

test("a duration longer than a timer can wait cannot be made", () => {
  assert.throws(() => Duration.parse("600h", "install.timeout"), {
    name: "RangeError",
    message: 'install.timeout "600h" is too long: a timer waits at most 2147483647 ms (about 24.8 days)',
  });
  assert.throws(() => Duration.hours(600), {
    name: "RangeError",
    message:
      "Duration.hours() got 2160000000 ms, longer than a timer can wait (2147483647 ms, about 24.8 days)",
  });
  assert.equal(Duration.millis(2 ** 31 - 1).toMilliseconds(), 2 ** 31 - 1);
});

test("a spec duration longer than 24 hours is rejected naming the field and the allowed range", () => {
  const tooLong = (field: string, shown: string) =>
    `${field} ${shown} is too long: must be a positive duration of at most 24h (86400 seconds), such as "30m" or "2h"`;
  const base = {
    chart: { repo: "https://charts.example.org", name: "cni", version: "1.2.3" },
    releaseName: "cni",
  };
  const cases: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
    [{ install: { timeout: "600h" } }, "install.timeout", '"600h"'],
    [{ install: { timeout: 86_401 } }, "install.timeout", "86401"],
    [{ retry: { deadline: "25h" } }, "retry.deadline", '"25h"'],
    [{ retry: { minBackoff: "9999h" } }, "retry.minBackoff", '"9999h"'],
    [{ retry: { maxBackoff: Duration.hours(48) } }, "retry.maxBackoff", '"48h"'],
  ];
  for (const [fields, field, shown] of cases) {
    assert.throws(
      () => validateSpec({ ...base, ...fields }),
      (e: unknown) => {
        assert.ok(e instanceof SpecError, `expected a SpecError, got ${String(e)}`);
        assert.equal(e.field, field);
        assert.equal(e.message, tooLong(field, shown));
        return true;
      },
    );
  }
  const s = validateSpec({ ...base, install: { timeout: "24h" }, retry: { deadline: 86_400 } });
  assert.equal(s.install.timeout.toSeconds(), 86_400);
});
