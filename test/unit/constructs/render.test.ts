/**
 * The cdk8s construct's errors about a render show no rendered text: a chart whose Secret template
 * renders a duplicated key (sensitive values, real helm v4) fails with the kind of YAML error, its
 * position and the template it came from, and neither the message nor `util.inspect` of the error
 * holds the password.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { inspect } from "node:util";
import { ClusterAddon } from "../../../constructs/index.js";
import { SpecError } from "../../../core/errors.js";
import { isolateCache, newChart, writeChart } from "../../support/constructs.js";

const PASSWORD = "render-secret-8675309";

let cache: ReturnType<typeof isolateCache>;
before(() => {
  cache = isolateCache();
});
after(() => cache.restore());

test("a render the YAML parser rejects fails naming the error, its position and template, without the rendered text", () => {
  const chart = writeChart("dup", {
    "templates/secret.yaml": [
      "apiVersion: v1",
      "kind: Secret",
      "metadata:",
      "  name: {{ .Release.Name }}-creds",
      "stringData:",
      "  password: {{ .Values.password }}",
      "  password: {{ .Values.password }}",
      "",
    ].join("\n"),
  });
  const { chart: scope } = newChart();
  let error: unknown;
  try {
    new ClusterAddon(scope, "dup", {
      chart: { path: chart },
      values: { password: PASSWORD },
      sensitive: true,
    });
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof SpecError, `expected a SpecError, got ${inspect(error)}`);
  assert.equal(
    error.message,
    "chart rendered invalid YAML: duplicate key at line 9, column 3 (in dup/templates/secret.yaml); the rendered text is not shown, it may hold secrets: run helm template to see it",
  );
  assert.ok(!inspect(error, { depth: 10 }).includes(PASSWORD), "util.inspect holds no password");
});
