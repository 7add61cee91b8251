/**
 * ClusterAddon at the edges: a late API server, CRDs racing their custom
 * resources, values the chart's schema rejects, and bad input. Real engine,
 * real helm, real local clusters.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SpecError } from "../../../core/index.js";
import type { ClusterAddonArgs } from "../../../provider/index.js";
import { type AddonDecl, type AddonStack, addonStack, liveRelease } from "../../support/addon.js";
import { localChart } from "../../support/charts.js";
import { clusterSuite, withLocalCluster } from "../../support/cluster.js";
import { collectProgramRejections, type ProgramRejections } from "../../support/pulumi.js";

describe("ClusterAddon at the edges", { timeout: 1_200_000 }, () => {
  const suite = clusterSuite({ name: "edges", helmSpy: true });
  let rejections: ProgramRejections;

  before(() => {
    rejections = collectProgramRejections();
  });
  after(() => {
    rejections.restore();
    // Only the input errors the failing programs threw on purpose may be left behind.
    for (const reason of rejections.reasons) {
      assert.ok(reason instanceof SpecError, `unexpected unhandled rejection: ${String(reason)}`);
    }
  });

  async function stackOf(decls: AddonDecl[]): Promise<AddonStack> {
    const s = await addonStack(decls, suite.spy);
    return suite.keep(s);
  }

  function args(extra: Partial<ClusterAddonArgs>): ClusterAddonArgs {
    return { kubeconfig: suite.cluster.kubeconfig, chart: { path: localChart("schema") }, ...extra };
  }

  /** Runs `up`, expects it to fail, returns the engine's output. */
  async function failingUp(s: AddonStack): Promise<string> {
    await assert.rejects(s.up());
    return s.output();
  }

  test("waits for an API server that starts 20 seconds after up began, then installs", async () => {
    await withLocalCluster({ name: "late", apiServerDelay: 20_000 }, async (late) => {
      const s = await stackOf([
        { name: "late-addon", args: { kubeconfig: late.kubeconfig, chart: { path: localChart("schema") } } },
      ]);
      const up = await s.up();
      const status = up.outputs["late-addonStatus"]?.value as { status: string };
      assert.equal(status.status, "deployed");
      assert.match(s.output(), /waiting for the API server/i);
    });
  });

  test("a CRD chart and a chart with a custom resource of that CRD both succeed when created in parallel", async () => {
    const s = await stackOf([
      {
        name: "crds",
        args: { kubeconfig: suite.cluster.kubeconfig, chart: { path: localChart("crds-only") } },
      },
      {
        name: "widgets",
        args: { kubeconfig: suite.cluster.kubeconfig, chart: { path: localChart("widget") } },
      },
    ]);
    await s.up();
    assert.equal((await liveRelease(suite.cluster, "crds"))?.status, "deployed");
    assert.equal((await liveRelease(suite.cluster, "widgets"))?.status, "deployed");
  });

  test("values that fail the chart's schema fail at the first attempt with helm's message naming the field", async () => {
    const s = await stackOf([{ name: "bad-values", args: args({ values: { replicas: 0 } }) }]);
    const out = await failingUp(s);
    assert.match(out, /values don't meet the specifications of the schema/);
    assert.match(out, /at '\/replicas': minimum: got 0, want 1/);
    assert.doesNotMatch(out, /attempt 2/);
    assert.equal(await liveRelease(suite.cluster, "bad-values"), undefined);
  });

  test("an object field the API server does not know fails at the first attempt naming the field, and nothing is left installed", async () => {
    // helm-handoff skips helm's client-side OpenAPI check: the server's strict validation must catch this.
    const chart = await mkdtemp(join(tmpdir(), "hh-typo-chart-"));
    try {
      await mkdir(join(chart, "templates"));
      await writeFile(join(chart, "Chart.yaml"), "apiVersion: v2\nname: typo\nversion: 0.1.0\n");
      await writeFile(
        join(chart, "templates", "objects.yaml"),
        [
          "apiVersion: v1",
          "kind: ConfigMap",
          "metadata: {name: '{{ .Release.Name }}-first'}",
          "data: {a: '1'}",
          "---",
          "apiVersion: v1",
          "kind: ConfigMap",
          "metadata: {name: '{{ .Release.Name }}-typo'}",
          "dataa: {a: '1'}",
          "",
        ].join("\n"),
      );
      const s = await stackOf([
        { name: "typo", args: { kubeconfig: suite.cluster.kubeconfig, chart: { path: chart } } },
      ]);
      const out = await failingUp(s);
      assert.match(out, /\.dataa: field not declared in schema/);
      assert.doesNotMatch(out, /attempt 2/);
      assert.equal(await liveRelease(suite.cluster, "typo"), undefined);
      const left = await suite.cluster.request("GET", "/api/v1/namespaces/default/configmaps/typo-first");
      assert.equal(left.status, 404, "the object applied before the failing one was removed too");
    } finally {
      await rm(chart, { recursive: true, force: true });
    }
  });

  test("an unknown strategy fails at construction with a message naming the field", async () => {
    const s = await stackOf([{ name: "bad-strategy", args: args({ strategy: "Sometimes" as "ApplyOnce" }) }]);
    const out = await failingUp(s);
    assert.match(out, /strategy "Sometimes" is invalid: must be one of "ApplyOnce", "Reconcile"/);
    assert.deepEqual(await suite.spy.calls().then((c) => c.filter((l) => l.includes("bad-strategy"))), []);
  });

  test("a release name of 60 characters fails before anything reaches the cluster", async () => {
    const name = "a".repeat(60);
    const s = await stackOf([{ name: "long-name", args: args({ releaseName: name }) }]);
    const out = await failingUp(s);
    assert.match(out, /releaseName "a{60}" is invalid: .*at most 53 characters/);
    assert.equal(await liveRelease(suite.cluster, name.slice(0, 53)), undefined);
  });

  test("a malformed chart reference fails with a message naming the chart field", async () => {
    const s = await stackOf([
      {
        name: "bad-chart",
        args: args({ chart: { repo: "ftp://charts.example.org", name: "x", version: "1.0.0" } }),
      },
    ]);
    const out = await failingUp(s);
    assert.match(out, /chart\.repo "ftp:\/\/charts\.example\.org" is invalid/);
  });

  test("an unreadable kubeconfig fails with a clear message and no helm call", async () => {
    await suite.spy.reset();
    const s = await stackOf([{ name: "bad-kc", args: args({ kubeconfig: "this: [is not: a kubeconfig" }) }]);
    const out = await failingUp(s);
    assert.match(out, /kubeconfig/);
    assert.deepEqual(await suite.spy.calls(), []);
  });

  test("wrong credentials fail at once as rejected credentials, not after a retry loop", async () => {
    await withLocalCluster({ name: "stranger" }, async (other) => {
      // The other cluster's client certificate is not trusted by this cluster's CA.
      const keyOf = (kc: string, field: string) => kc.split("\n").find((l) => l.includes(field))!;
      const wrong = suite.cluster.kubeconfig
        .replace(
          keyOf(suite.cluster.kubeconfig, "client-certificate-data"),
          keyOf(other.kubeconfig, "client-certificate-data"),
        )
        .replace(
          keyOf(suite.cluster.kubeconfig, "client-key-data"),
          keyOf(other.kubeconfig, "client-key-data"),
        );
      const s = await stackOf([{ name: "bad-creds", args: args({ kubeconfig: wrong }) }]);
      const out = await failingUp(s);
      // An untrusted client certificate makes the request anonymous: /readyz may answer, the API refuses.
      assert.match(out, /rejected the kubeconfig's credentials|forbidden|Unauthorized/);
      assert.doesNotMatch(out, /attempt 2/);
      assert.equal(await liveRelease(suite.cluster, "bad-creds"), undefined);
    });
  });
});
