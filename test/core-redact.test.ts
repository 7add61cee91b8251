import assert from "node:assert/strict";
import { test } from "node:test";
import { Redactor } from "../core/redact.js";

test("addValues registers every string leaf of at least six characters, in objects and arrays", () => {
  const r = new Redactor().addValues({
    auth: { token: "tok-123456", short: "abc" },
    hosts: ["host-a.example", { inner: "nested-value" }],
    replicas: 3,
    enabled: true,
  });
  assert.equal(
    r.redact("tok-123456 abc host-a.example nested-value 3 true"),
    "[redacted] abc [redacted] [redacted] 3 true",
  );
});
