/**
 * A chart repository whose URL carries a token in its path (as hosted registries issue them),
 * marked `chart.secretRepo`, on the real helm, engine and a local cluster: the add-on installs
 * from it, and the token is in no helm argv (a helm spy records every one), not in the state
 * file outside a secret, not in the engine's output and not in the handoff record.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { HandoffRecord } from "../../../core/handoff/record.js";
import { generatePki } from "../../../local-cluster/control-plane/certs.js";
import { addonStack, liveRelease } from "../../support/addon.js";
import { clusterSuite } from "../../support/cluster.js";
import { startHttpChartRepo } from "../../support/repos.js";

describe("a secret repository URL", { timeout: 600_000 }, () => {
  const suite = clusterSuite({ name: "secret-repo", helmSpy: true });

  test("installs from the repository and keeps its URL out of argv, state, output and the handoff record", async () => {
    const token = "tok-7f3a9c2e51d84b06a1e2";
    const pki = await generatePki(await mkdtemp(join(tmpdir(), "hh-secret-repo-")), "repo");
    const repo = await startHttpChartRepo({
      charts: ["schema"],
      tls: { cert: pki.servingCert, key: pki.servingKey },
      secretPath: token,
    });
    try {
      const chart = {
        repo: repo.url,
        name: "schema",
        version: "0.1.0",
        caFile: pki.caCert,
        secretRepo: true,
      };
      const s = suite.keep(
        await addonStack(
          [
            {
              name: "secret-repo",
              args: { kubeconfig: suite.cluster.kubeconfig, chart, values: { replicas: 1, mode: "a" } },
            },
          ],
          suite.spy,
        ),
      );
      assert.equal((await s.up()).summary.result, "succeeded");
      assert.equal((await liveRelease(suite.cluster, "secret-repo"))?.status, "deployed");
      const calls = await suite.spy.calls();
      assert.ok(
        calls.some((c) => c.startsWith("repo update helm-handoff ")),
        calls.join("\n"),
      );
      assert.ok(
        calls.some((c) => c.startsWith("install secret-repo helm-handoff/schema ")),
        calls.join("\n"),
      );
      for (const [where, text] of [
        ["argv", calls.join("\n")],
        ["state", await s.stateText()],
        ["output", s.output()],
      ] as const) {
        assert.ok(!text.includes(token), `the repository URL's token leaked into ${where}`);
      }
      const record = (await s.stack.outputs())["secret-repoHandoff"]?.value as HandoffRecord;
      assert.deepEqual(record.chart.source, { repo: "", name: "schema", secretRepo: true });
    } finally {
      await repo.close();
    }
  });
});
