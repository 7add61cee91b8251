/**
 * Bad input, table-driven, through the real engine: each malformed ClusterAddon fails with a
 * message naming the field and the fix (the exact text of core/spec/validate.ts, core/cluster/kubeconfig.ts and
 * core/errors.ts), before any helm process starts, without a retry loop, with nothing installed,
 * no helm-handoff temp dir and no process left behind. One local cluster (no workloads) serves
 * every case.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { HelmHandoffError } from "../../../core/index.js";
import type { LocalCluster } from "../../../local-cluster/index.js";
import type { ChartSource, ClusterAddonArgs } from "../../../provider/index.js";
import { RELEASE_TYPES } from "../../../provider/state/resource.js";
import { localChart, runHelm } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import { assertNoLeftovers, createSandbox, faultStack, type Sandbox } from "../../support/faults.js";
import { collectProgramRejections, type ProgramRejections } from "../../support/pulumi.js";

/** One malformed input: the add-on's args (built from the shared cluster) and the message it must fail with. */
interface BadInput {
  /** What is wrong, as the test name says it. */
  readonly what: string;
  /** Resource name (also the release name unless the args give one). */
  readonly name: string;
  /** The add-on's args, given a valid kubeconfig and a valid local chart. */
  readonly args: (valid: ClusterAddonArgs) => ClusterAddonArgs;
  /** The exact message (or its exact beginning) the `up` must fail with. */
  readonly message: (cluster: LocalCluster) => string;
}

/** The kubeconfig with its current-context pointing at a context that does not exist. */
function withMissingContext(kubeconfig: string): string {
  const doc = parseYaml(kubeconfig) as Record<string, unknown>;
  return stringifyYaml({ ...doc, "current-context": "nope" });
}

/** The kubeconfig with its user's client certificate replaced by a bearer token the API server does not know. */
function withWrongToken(kubeconfig: string): string {
  const doc = parseYaml(kubeconfig) as { users: Array<{ name: string; user: Record<string, unknown> }> };
  return stringifyYaml({
    ...doc,
    users: doc.users.map((u) => ({ name: u.name, user: { token: "not-a-token-this-cluster-knows" } })),
  });
}

const NOT_YAML = "this: [is not: a kubeconfig";

/** A values file in Latin-1 ("grüß dich"), which read as UTF-8 would become "gr\uFFFD\uFFFD dich". */
const LATIN1_VALUES = join(mkdtempSync(join(tmpdir(), "hh-bad-input-")), "latin1.yaml");
writeFileSync(LATIN1_VALUES, Buffer.from("greeting: gr\xfc\xdf dich\n", "latin1"));
/** Values with an own `__proto__` key, as JSON.parse makes them. */
const PROTO_VALUES = () => JSON.parse('{"__proto__": {"message": "lost"}}') as Record<string, unknown>;
const PROTO =
  'values.__proto__ is invalid: a values key named "__proto__" cannot be passed on intact (JavaScript drops it); rename the key in the values and in the chart';
const DNS_NAME = "must be a lowercase DNS-1123 name of at most 53 characters (helm's limit)";
const DURATION = 'must be a positive duration such as "5m", "300s" or "1h30m", or a number of seconds';
const CHART_SHAPE =
  'give either { repo, name, version? } for a repository chart (repo "https://…" or "oci://…") or { path } for a local chart';

const CASES: readonly BadInput[] = [
  {
    what: "an unknown strategy",
    name: "bad-strategy",
    args: (v) => ({ ...v, strategy: "Sometimes" as "ApplyOnce" }),
    message: () => 'strategy "Sometimes" is invalid: must be one of "ApplyOnce", "Reconcile"',
  },
  {
    what: "an empty release name",
    name: "empty-name",
    args: (v) => ({ ...v, releaseName: "" }),
    message: () => `releaseName "" is invalid: ${DNS_NAME}, e.g. "my-addon"`,
  },
  {
    what: "a release name of 60 characters",
    name: "long-name",
    args: (v) => ({ ...v, releaseName: "a".repeat(60) }),
    message: () => `releaseName "${"a".repeat(60)}" is invalid: ${DNS_NAME}, e.g. "${"a".repeat(53)}"`,
  },
  {
    what: "an upper-case release name",
    name: "upper-name",
    args: (v) => ({ ...v, releaseName: "CertManager" }),
    message: () => `releaseName "CertManager" is invalid: ${DNS_NAME}, e.g. "certmanager"`,
  },
  {
    what: "a namespace that is not a DNS label",
    name: "bad-namespace",
    args: (v) => ({ ...v, namespace: "kube_system" }),
    message: () =>
      'namespace "kube_system" is invalid: must be a lowercase DNS-1123 label of at most 63 characters, e.g. "kube-system"',
  },
  {
    what: "a chart with neither repo nor path",
    name: "no-source",
    args: (v) => ({ ...v, chart: { name: "cni", version: "1.2.3" } as unknown as ChartSource }),
    message: () => `chart has neither repo nor path: ${CHART_SHAPE}`,
  },
  {
    what: "a chart with neither repo nor path given as an Output (caught by the provider's check)",
    name: "no-source-output",
    args: (v) => ({ ...v, chart: pulumi.output({ name: "cni" } as unknown as ChartSource) }),
    message: () => `chart has neither repo nor path: ${CHART_SHAPE}`,
  },
  {
    what: "an oci:// repository with a chart name that carries a tag",
    name: "oci-tag",
    args: (v) => ({ ...v, chart: { repo: "oci://registry.example.org/charts", name: "cni:1.2.3" } }),
    message: () =>
      'chart.name "cni:1.2.3" is invalid: an oci:// chart name must not carry a tag or digest; put the version in chart.version, e.g. name "cni", version "1.2.3"',
  },
  {
    what: "a version constraint helm cannot parse",
    name: "bad-version",
    args: (v) => ({ ...v, chart: { repo: "https://charts.example.org", name: "cni", version: "latest" } }),
    message: () =>
      'chart.version "latest" is invalid: must be an exact version (e.g. "1.2.3") or a semver range helm understands (e.g. "^1.2", "~1.2.3", ">=1.0.0 <2.0.0", "1.2.x"); omit it for the latest version',
  },
  {
    what: "a negative timeout",
    name: "negative-timeout",
    args: (v) => ({ ...v, install: { timeout: -30 } }),
    message: () => `install.timeout -30 is invalid: ${DURATION}`,
  },
  {
    what: "a zero timeout",
    name: "zero-timeout",
    args: (v) => ({ ...v, install: { timeout: "0s" } }),
    message: () => `install.timeout "0s" is invalid: ${DURATION}`,
  },
  {
    what: "a timeout longer than 24 hours",
    name: "long-timeout",
    args: (v) => ({ ...v, install: { timeout: "600h" } }),
    message: () =>
      'install.timeout "600h" is too long: must be a positive duration of at most 24h (86400 seconds), such as "30m" or "2h"',
  },
  {
    what: "a deadline shorter than one attempt",
    name: "short-deadline",
    args: (v) => ({ ...v, install: { timeout: "5m" }, retry: { deadline: "1m" } }),
    message: () =>
      'retry.deadline "1m" is shorter than install.timeout "5m": the overall deadline must allow at least one full attempt; raise retry.deadline or lower install.timeout',
  },
  {
    what: "a misspelt install option",
    name: "install-typo",
    args: (v) => ({ ...v, install: { timeOut: "5m" } as unknown as ClusterAddonArgs["install"] }),
    message: () =>
      "install.timeOut is not a known field: install takes wait, waitForJobs, timeout, skipCrds, disableHooks, description",
  },
  {
    what: "waiting for Jobs without waiting",
    name: "jobs-no-wait",
    args: (v) => ({ ...v, install: { wait: false, waitForJobs: true } }),
    message: () =>
      "install.waitForJobs is true but install.wait is false: waiting for Jobs needs install.wait",
  },
  {
    what: "values that are not an object",
    name: "values-array",
    args: (v) => ({ ...v, values: ["replicas=2"] as unknown as Record<string, unknown> }),
    message: () =>
      "values is invalid: must be a plain object of chart values, e.g. { replicaCount: 2 }, got an array",
  },
  {
    what: "values that are not an object, given as an Output (caught by the provider's check)",
    name: "values-output",
    args: (v) => ({ ...v, values: pulumi.output("replicas: 2" as unknown as Record<string, unknown>) }),
    message: () =>
      "values is invalid: must be a plain object of chart values, e.g. { replicaCount: 2 }, got a string (a secret field: its content is never shown)",
  },
  {
    what: "a values file that does not exist",
    name: "missing-values-file",
    args: (v) => ({ ...v, valueFiles: ["/nonexistent/helm-handoff/values.yaml"] }),
    message: () =>
      'valueFiles[0] "/nonexistent/helm-handoff/values.yaml" does not exist: give the path of a YAML values file readable by this process',
  },
  {
    what: "a values file that is not UTF-8",
    name: "latin1-values-file",
    args: (v) => ({ ...v, valueFiles: [LATIN1_VALUES] }),
    message: () =>
      `valueFiles[0] ${JSON.stringify(LATIN1_VALUES)} is not UTF-8 text: save it as UTF-8 (helm reads values files as UTF-8; other encodings would change the values)`,
  },
  {
    what: "a values key named __proto__",
    name: "proto-values",
    args: (v) => ({ ...v, values: PROTO_VALUES() }),
    message: () => PROTO,
  },
  {
    what: "a values key named __proto__, computed by an apply (caught before Pulumi serializes the values)",
    name: "proto-values-output",
    args: (v) => ({ ...v, values: pulumi.output("computed").apply(() => PROTO_VALUES()) }),
    message: () => PROTO,
  },
  {
    what: "repository credentials without a password",
    name: "no-password",
    args: (v) => ({
      ...v,
      chart: { repo: "https://charts.example.org", name: "cni", version: "1.2.3", username: "ci" },
    }),
    message: () => "chart.username is set but chart.password is not: give both for basic auth, or neither",
  },
  {
    what: "a repository password over plain http://",
    name: "password-over-http",
    args: (v) => ({
      ...v,
      chart: {
        repo: "http://charts.example.org",
        name: "cni",
        version: "1.2.3",
        username: "ci",
        password: "s3cret-repo-pass",
      },
    }),
    message: () =>
      'chart.repo "http://charts.example.org" is plain HTTP, so chart.password would cross the network in clear: use an https:// URL, or leave out chart.username and chart.password',
  },
  {
    what: "a repository URL with a token in its query",
    name: "repo-url-token",
    args: (v) => ({
      ...v,
      chart: {
        repo: "https://charts.example.org/stable?token=tok-0123456789",
        name: "cni",
        version: "1.2.3",
      },
    }),
    message: () =>
      'chart.repo "https://charts.example.org/stable?…" is invalid: must not carry a query or fragment (not shown: it may hold a token); give credentials as chart.username and chart.password, e.g. "https://charts.example.org" or "oci://registry.example.org/charts"',
  },
  {
    what: "a kubeconfig that is not YAML",
    name: "kubeconfig-not-yaml",
    args: (v) => ({ ...v, kubeconfig: NOT_YAML }),
    message: () => "kubeconfig is not valid YAML: ",
  },
  {
    what: "a kubeconfig that is not YAML, given as a secret Output",
    name: "secret-kubeconfig-not-yaml",
    args: (v) => ({ ...v, kubeconfig: pulumi.secret(NOT_YAML) }),
    message: () => "kubeconfig is not valid YAML: ",
  },
  {
    what: "a kubeconfig whose current context is missing",
    name: "missing-context",
    args: (v) => ({ ...v, kubeconfig: withMissingContext(v.kubeconfig as string) }),
    message: () =>
      'kubeconfig context "nope" is not defined in contexts: fix current-context or add that context',
  },
  {
    what: "a kubeconfig with wrong credentials (401)",
    name: "wrong-credentials",
    args: (v) => ({ ...v, kubeconfig: withWrongToken(v.kubeconfig as string) }),
    message: (c) =>
      `the API server ${c.server} rejected the kubeconfig's credentials (HTTP 401 on /readyz): check the user's token or client certificate in the kubeconfig`,
  },
];

describe("ClusterAddon rejects bad input", { timeout: 900_000 }, () => {
  const suite = clusterSuite({ name: "bad-input", helmSpy: true });
  let sandbox: Sandbox;
  let rejections: ProgramRejections;

  before(async () => {
    rejections = collectProgramRejections();
    sandbox = suite.keep(await createSandbox());
  });
  after(() => {
    rmSync(dirname(LATIN1_VALUES), { recursive: true, force: true });
    rejections.restore();
    // Programs that throw leave their error in promises nobody awaits; only input errors may be among them.
    for (const reason of rejections.reasons) {
      assert.ok(reason instanceof HelmHandoffError, `unexpected unhandled rejection: ${String(reason)}`);
    }
  });

  for (const c of CASES) {
    test(`${c.what} fails before any helm call with a message naming the field and the fix`, async () => {
      await suite.spy.reset();
      const valid: ClusterAddonArgs = {
        kubeconfig: suite.cluster.kubeconfig,
        chart: { path: localChart("schema") },
      };
      const s = await faultStack([{ name: c.name, args: c.args(valid) }], suite.spy, sandbox);
      suite.keep(s);
      await assert.rejects(s.up());
      const out = s.output();
      const expected = c.message(suite.cluster);
      assert.ok(out.includes(expected), `expected the engine's output to contain:\n${expected}\n---\n${out}`);
      assert.deepEqual(await suite.spy.calls(), [], "no helm process was started");
      assert.doesNotMatch(out, /attempt 2|retrying in/, "no retry loop");
      assert.doesNotMatch(out, /is not valid YAML: .*is not: a kubeconfig/, "the kubeconfig is not echoed");
      assert.doesNotMatch(out, /s3cret-repo-pass|tok-0123456789/, "no password or URL token is echoed");
      const stack = await s.stack.exportStack();
      const resources = (stack.deployment as { resources?: Array<{ type: string }> }).resources ?? [];
      assert.deepEqual(
        resources.filter((r) => RELEASE_TYPES.includes(r.type)),
        [],
        "no release recorded in the state",
      );
      await assertNoLeftovers(sandbox);
    });
  }

  test("nothing was installed on the cluster by any of the bad inputs", async () => {
    const list = await runHelm([
      "list",
      "--all-namespaces",
      "--kubeconfig",
      suite.cluster.kubeconfigPath,
      "-o",
      "json",
    ]);
    assert.deepEqual(JSON.parse(list.stdout), []);
  });
});
