import assert from "node:assert/strict";
import { test } from "node:test";
import { Duration } from "../core/duration.js";

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
