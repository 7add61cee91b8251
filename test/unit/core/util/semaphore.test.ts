import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Semaphore } from "../../../../core/util/semaphore.js";

test("a semaphore runs at most its limit at once and the waiters in arrival order", async () => {
  const slots = new Semaphore(2);
  let running = 0;
  let peak = 0;
  const started: number[] = [];
  await Promise.all(
    [0, 1, 2, 3, 4].map((i) =>
      slots.run(async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        await sleep(5);
        running--;
      }),
    ),
  );
  assert.equal(peak, 2);
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
});

test("a semaphore frees the slot of a function that throws", async () => {
  const slots = new Semaphore(1);
  await assert.rejects(
    slots.run(async () => {
      throw new Error("boom");
    }),
    { message: "boom" },
  );
  assert.equal(await slots.run(async () => "next"), "next");
});
