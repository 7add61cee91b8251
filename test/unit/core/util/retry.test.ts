import assert from "node:assert/strict";
import { test } from "node:test";
import { DEADLINE_NEXT_STEP, DeadlineExceededError } from "../../../../core/errors.js";
import { Duration } from "../../../../core/spec/duration.js";
import { backoffDelay, retry } from "../../../../core/util/retry.js";

class Transient extends Error {}

function fakeClock(start = Date.parse("2024-01-01T00:00:00Z")) {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    sleeps,
  };
}

const policy = {
  deadline: Duration.seconds(60),
  minBackoff: Duration.seconds(2),
  maxBackoff: Duration.seconds(10),
  isRetryable: (e: unknown) => e instanceof Transient,
};

test("backoff grows exponentially from minBackoff and is capped at maxBackoff", () => {
  const min = Duration.seconds(2);
  const max = Duration.seconds(10);
  assert.equal(backoffDelay(1, min, max, 0.999).toMilliseconds(), 2000);
  assert.equal(backoffDelay(2, min, max, 1).toMilliseconds(), 4000);
  assert.equal(backoffDelay(3, min, max, 1).toMilliseconds(), 8000);
  assert.equal(backoffDelay(4, min, max, 1).toMilliseconds(), 10_000);
  assert.equal(backoffDelay(9, min, max, 0).toMilliseconds(), 2000);
});

test("retry returns the first success and sleeps within the backoff bounds", async () => {
  const clock = fakeClock();
  let calls = 0;
  const result = await retry(
    async (n) => {
      calls = n;
      if (n < 4) throw new Transient(`not yet ${n}`);
      return "ok";
    },
    { ...policy, now: clock.now, sleep: clock.sleep },
  );
  assert.equal(result, "ok");
  assert.equal(calls, 4);
  assert.equal(clock.sleeps.length, 3);
  for (const [i, ms] of clock.sleeps.entries()) {
    assert.ok(ms >= 2000, `sleep ${i} >= minBackoff`);
    assert.ok(ms <= Math.min(10_000, 2000 * 2 ** i), `sleep ${i} <= cap`);
  }
});

test("a non-retryable error is rethrown at once without sleeping", async () => {
  const clock = fakeClock();
  const permanent = new Error("values don't meet the specifications of the schema(s)");
  let calls = 0;
  await assert.rejects(
    retry(
      async () => {
        calls++;
        throw permanent;
      },
      { ...policy, now: clock.now, sleep: clock.sleep },
    ),
    (e) => e === permanent,
  );
  assert.equal(calls, 1);
  assert.deepEqual(clock.sleeps, []);
});

test("the deadline ends the loop with every attempt listed and the last cause", async () => {
  const clock = fakeClock();
  const retries: number[] = [];
  const err = await retry(
    async (n) => {
      clock.advance(1000);
      throw new Transient(`connection refused #${n}`);
    },
    {
      ...policy,
      what: "install of release default/x",
      now: clock.now,
      sleep: clock.sleep,
      random: () => 1,
      onRetry: (info) => retries.push(info.attempt),
    },
  ).catch((e: unknown) => e);
  assert.ok(err instanceof DeadlineExceededError);
  // attempts 1s each, waits 2,4,8,10,10,10 s: 6 waits fit in 60 s; the 7th would cross the deadline
  assert.equal(err.attempts.length, 7);
  assert.deepEqual(
    err.attempts.map((a) => a.attempt),
    [1, 2, 3, 4, 5, 6, 7],
  );
  assert.equal(err.attempts[0]?.startedAt, "2024-01-01T00:00:00.000Z");
  assert.equal(err.attempts[6]?.error, "connection refused #7");
  assert.ok(err.lastCause instanceof Transient);
  assert.deepEqual(retries, [1, 2, 3, 4, 5, 6]);
  const total = clock.sleeps.reduce((a, b) => a + b, 0) + 7000;
  assert.ok(total <= 60_000, "never sleeps past the deadline");
  assert.equal(
    err.message,
    "install of release default/x did not succeed within the deadline of 1m after 7 attempt(s):\n" +
      [0, 1, 2, 3, 4, 5, 6]
        .map((i) => {
          const a = err.attempts[i]!;
          return `  #${a.attempt} at ${a.startedAt}: connection refused #${a.attempt}`;
        })
        .join("\n") +
      "\nlast cause: connection refused #7" +
      `\nnext step: ${DEADLINE_NEXT_STEP}`,
  );
});

test("an aborted signal stops the loop with the abort reason", async () => {
  const controller = new AbortController();
  const clock = fakeClock();
  const reason = new Error("user cancelled");
  await assert.rejects(
    retry(
      async () => {
        controller.abort(reason);
        throw new Transient("x");
      },
      { ...policy, signal: controller.signal, now: clock.now, sleep: clock.sleep },
    ),
    (e) => e === reason,
  );
});
