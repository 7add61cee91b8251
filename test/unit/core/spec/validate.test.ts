/**
 * The add-on spec's validation (`validateSpec`): every default, and each malformed field refused
 * with a `SpecError` naming the field and the fix. The secret fields' rules are in
 * test/unit/core/spec/validate-credentials.test.ts.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Duration } from "../../../../core/spec/duration.js";
import { isVersionConstraint, validateSpec } from "../../../../core/spec/index.js";
import { baseSpec as base, repoChart, throwsSpecError } from "../../../support/spec.js";

function rejects(input: unknown, field: string, message: string): void {
  throwsSpecError(() => validateSpec(input), field, message);
}

test("a minimal spec gets every default", () => {
  const s = validateSpec(base);
  assert.equal(s.namespace, "default");
  assert.equal(s.createNamespace, false);
  assert.equal(s.strategy, "ApplyOnce");
  assert.deepEqual(s.values, {});
  assert.deepEqual(s.valueFiles, []);
  assert.equal(s.install.wait, true);
  assert.equal(s.install.waitForJobs, false);
  assert.equal(s.install.timeout.toMilliseconds(), 300_000);
  assert.equal(s.install.skipCrds, false);
  assert.equal(s.install.disableHooks, false);
  assert.equal(s.install.description, undefined);
  assert.equal(s.retry.deadline.toMilliseconds(), 900_000);
  assert.equal(s.retry.minBackoff.toMilliseconds(), 2000);
  assert.equal(s.retry.maxBackoff.toMilliseconds(), 30_000);
  assert.deepEqual(s.chart, {
    kind: "repo",
    repo: "https://charts.example.org",
    name: "cni",
    version: "1.2.3",
    username: undefined,
    password: undefined,
    caFile: undefined,
    insecureSkipTlsVerify: false,
    plainHttp: false,
    secretRepo: false,
  });
});

test("durations are accepted as Duration, strings and numbers of seconds", () => {
  const s = validateSpec({
    ...base,
    install: { timeout: "2m" },
    retry: { deadline: 600, minBackoff: Duration.millis(500), maxBackoff: "1m" },
  });
  assert.equal(s.install.timeout.toSeconds(), 120);
  assert.equal(s.retry.deadline.toSeconds(), 600);
  assert.equal(s.retry.minBackoff.toMilliseconds(), 500);
  assert.equal(s.retry.maxBackoff.toSeconds(), 60);
});

test("an oci:// chart is recognized", () => {
  const s = validateSpec({
    ...base,
    chart: { repo: "oci://registry.example.org/charts/", name: "cni", version: "^1.2" },
  });
  assert.equal(s.chart.kind, "oci");
  assert.equal("repo" in s.chart && s.chart.repo, "oci://registry.example.org/charts");
});

test("version constraints helm understands are accepted", () => {
  for (const v of [
    "1.2.3",
    "v1.2.3",
    "1.2.3-rc.1",
    "^1.2",
    "~1.2.3",
    ">=1.0.0 <2.0.0",
    ">=1.0.0, <2.0.0",
    "1.2.x",
    "*",
    "1.2 - 1.4.5",
    "^1 || ^2",
  ]) {
    assert.equal(isVersionConstraint(v), true, v);
  }
  for (const v of ["1..2", "latest", "", "1.2.3.4", ">>1", "stable"]) {
    assert.equal(isVersionConstraint(v), false, v);
  }
});

test("an unknown strategy is rejected", () => {
  rejects(
    { ...base, strategy: "Sometimes" },
    "strategy",
    'strategy "Sometimes" is invalid: must be one of "ApplyOnce", "Reconcile"',
  );
});

test("adopt is for Reconcile only, and a boolean", () => {
  assert.equal(validateSpec(base).adopt, false);
  assert.equal(validateSpec({ ...base, strategy: "Reconcile", adopt: true }).adopt, true);
  rejects(
    { ...base, adopt: true },
    "adopt",
    'adopt is invalid with strategy "ApplyOnce": it lets Reconcile take over a release it did not write, while ApplyOnce always adopts such a release as it is and never writes to it; remove adopt, or set strategy "Reconcile"',
  );
  rejects(
    { ...base, strategy: "Reconcile", adopt: "yes" },
    "adopt",
    'adopt is invalid: must be true or false, got a string "yes"',
  );
});

test("an empty release name is rejected", () => {
  rejects(
    { ...base, releaseName: "" },
    "releaseName",
    `releaseName "" is invalid: must be a lowercase DNS-1123 name of at most 53 characters (helm's limit), e.g. "my-addon"`,
  );
});

test("a release name of 60 characters is rejected", () => {
  const name = "a".repeat(60);
  rejects(
    { ...base, releaseName: name },
    "releaseName",
    `releaseName "${name}" is invalid: must be a lowercase DNS-1123 name of at most 53 characters (helm's limit), e.g. "${"a".repeat(53)}"`,
  );
});

test("an upper-case release name is rejected", () => {
  rejects(
    { ...base, releaseName: "Foo" },
    "releaseName",
    `releaseName "Foo" is invalid: must be a lowercase DNS-1123 name of at most 53 characters (helm's limit), e.g. "foo"`,
  );
});

test("a missing release name is rejected", () => {
  rejects(
    { chart: repoChart },
    "releaseName",
    `releaseName is required: give a lowercase DNS-1123 name of at most 53 characters (helm's limit), e.g. "my-addon", got undefined`,
  );
});

test("a namespace that is not a DNS-1123 label is rejected", () => {
  rejects(
    { ...base, namespace: "Kube_System" },
    "namespace",
    'namespace "Kube_System" is invalid: must be a lowercase DNS-1123 label of at most 63 characters, e.g. "kube-system"',
  );
  rejects(
    { ...base, namespace: "a.b" },
    "namespace",
    'namespace "a.b" is invalid: must be a lowercase DNS-1123 label of at most 63 characters, e.g. "a-b"',
  );
});

test("a chart with neither repo nor path is rejected", () => {
  rejects(
    { ...base, chart: { name: "cni" } },
    "chart",
    'chart has neither repo nor path: give either { repo, name, version? } for a repository chart (repo "https://…" or "oci://…") or { path } for a local chart',
  );
});

test("a chart with both repo and path is rejected", () => {
  rejects(
    { ...base, chart: { repo: "https://x.org", name: "cni", path: "./cni" } },
    "chart",
    'chart has both repo and path: give either { repo, name, version? } for a repository chart (repo "https://…" or "oci://…") or { path } for a local chart',
  );
});

test("a repo that is not http(s):// or oci:// is rejected", () => {
  rejects(
    { ...base, chart: { repo: "ftp://charts.example.org", name: "cni" } },
    "chart.repo",
    'chart.repo "ftp://charts.example.org" is invalid: must be an https://, http:// or oci:// URL, e.g. "https://charts.example.org" or "oci://registry.example.org/charts"',
  );
});

test("an oci:// chart name with a tag is rejected", () => {
  rejects(
    { ...base, chart: { repo: "oci://registry.example.org/charts", name: "cni:1.2.3" } },
    "chart.name",
    'chart.name "cni:1.2.3" is invalid: an oci:// chart name must not carry a tag or digest; put the version in chart.version, e.g. name "cni", version "1.2.3"',
  );
});

test("an oci:// chart name with a digest is rejected", () => {
  rejects(
    { ...base, chart: { repo: "oci://registry.example.org/charts", name: `cni@sha256:${"a".repeat(64)}` } },
    "chart.name",
    `chart.name "cni@sha256:${"a".repeat(64)}" is invalid: an oci:// chart name must not carry a tag or digest; put the version in chart.version, e.g. name "cni", version "1.2.3"`,
  );
});

test("a chart name that includes the repository is rejected", () => {
  rejects(
    { ...base, chart: { repo: "https://charts.bitnami.com/bitnami", name: "bitnami/nginx" } },
    "chart.name",
    'chart.name "bitnami/nginx" is invalid: must be the chart\'s name alone (letters, digits, ".", "_", "-"); the repository goes in chart.repo, e.g. "nginx"',
  );
});

test("an unparsable version constraint is rejected", () => {
  const msg = (v: string) =>
    `chart.version "${v}" is invalid: must be an exact version (e.g. "1.2.3") or a semver range helm understands (e.g. "^1.2", "~1.2.3", ">=1.0.0 <2.0.0", "1.2.x"); omit it for the latest version`;
  rejects({ ...base, chart: { ...repoChart, version: "1..2" } }, "chart.version", msg("1..2"));
  rejects({ ...base, chart: { ...repoChart, version: "latest" } }, "chart.version", msg("latest"));
});

test("a negative timeout is rejected", () => {
  rejects(
    { ...base, install: { timeout: "-5m" } },
    "install.timeout",
    'install.timeout "-5m" is invalid: must be a positive duration such as "5m", "300s" or "1h30m", or a number of seconds',
  );
  rejects(
    { ...base, install: { timeout: -5 } },
    "install.timeout",
    'install.timeout -5 is invalid: must be a positive duration such as "5m", "300s" or "1h30m", or a number of seconds',
  );
});

test("a zero timeout is rejected", () => {
  rejects(
    { ...base, install: { timeout: 0 } },
    "install.timeout",
    'install.timeout 0 is invalid: must be a positive duration such as "5m", "300s" or "1h30m", or a number of seconds',
  );
});

test("a NaN deadline is rejected", () => {
  rejects(
    { ...base, retry: { deadline: Number.NaN } },
    "retry.deadline",
    'retry.deadline NaN is invalid: must be a positive duration such as "5m", "300s" or "1h30m", or a number of seconds',
  );
});

test("a deadline shorter than one attempt's timeout is rejected", () => {
  rejects(
    { ...base, install: { timeout: "10m" }, retry: { deadline: "5m" } },
    "retry.deadline",
    'retry.deadline "5m" is shorter than install.timeout "10m": the overall deadline must allow at least one full attempt; raise retry.deadline or lower install.timeout',
  );
});

test("maxBackoff below minBackoff is rejected", () => {
  rejects(
    { ...base, retry: { minBackoff: "10s", maxBackoff: "1s" } },
    "retry.maxBackoff",
    'retry.maxBackoff "1s" is shorter than retry.minBackoff "10s": raise retry.maxBackoff or lower retry.minBackoff',
  );
});

test("values that are not a plain object are rejected", () => {
  rejects(
    { ...base, values: [1, 2] },
    "values",
    "values is invalid: must be a plain object of chart values, e.g. { replicaCount: 2 }, got an array",
  );
  rejects(
    { ...base, values: "replicaCount: 2" },
    "values",
    "values is invalid: must be a plain object of chart values, e.g. { replicaCount: 2 }, got a string (a secret field: its content is never shown)",
  );
  rejects(
    { ...base, values: new Map() },
    "values",
    "values is invalid: must be a plain object of chart values, e.g. { replicaCount: 2 }, got an instance of Map",
  );
});

test("values that are not JSON are rejected with the path of the bad leaf", () => {
  rejects(
    { ...base, values: { a: { b: [1, () => 1] } } },
    "values.a.b[1]",
    "values.a.b[1] is invalid: chart values must be JSON (objects, arrays, strings, numbers, booleans, null), got function () => 1",
  );
});

test("a value file that does not exist is rejected", () => {
  rejects(
    { ...base, valueFiles: ["/nonexistent/values.yaml"] },
    "valueFiles[0]",
    'valueFiles[0] "/nonexistent/values.yaml" does not exist: give the path of a YAML values file readable by this process',
  );
});

test("a value file that is a directory is rejected", () => {
  const dir = mkdtempSync(join(tmpdir(), "hh-spec-"));
  rejects(
    { ...base, valueFiles: [dir] },
    "valueFiles[0]",
    `valueFiles[0] ${JSON.stringify(dir)} is not a file: give the path of a YAML values file readable by this process`,
  );
});

test("an unreadable value file is rejected", {
  skip: process.getuid?.() === 0 ? "root reads any file" : false,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "hh-spec-"));
  const f = join(dir, "v.yaml");
  writeFileSync(f, "a: 1\n");
  chmodSync(f, 0o000);
  rejects(
    { ...base, valueFiles: [f] },
    "valueFiles[0]",
    `valueFiles[0] ${JSON.stringify(f)} cannot be read (EACCES): give the path of a YAML values file readable by this process`,
  );
});

test("value files are resolved to absolute paths", () => {
  const dir = mkdtempSync(join(tmpdir(), "hh-spec-"));
  const f = join(dir, "v.yaml");
  writeFileSync(f, "a: 1\n");
  assert.deepEqual(validateSpec({ ...base, valueFiles: [f] }).valueFiles, [f]);
});

test("a username without a password is rejected", () => {
  rejects(
    { ...base, chart: { ...repoChart, username: "bob" } },
    "chart.password",
    "chart.username is set but chart.password is not: give both for basic auth, or neither",
  );
});

test("a password without a username is rejected", () => {
  rejects(
    { ...base, chart: { ...repoChart, password: "s3cret" } },
    "chart.username",
    "chart.password is set but chart.username is not: give both for basic auth, or neither",
  );
});

test("a misspelled chart field is rejected", () => {
  rejects(
    { ...base, chart: { ...repoChart, verison: "1.2.3" } },
    "chart.verison",
    "chart.verison is not a known field: a repository chart takes repo, name, version, username, password, caFile, insecureSkipTlsVerify, plainHttp, secretRepo",
  );
});

test("a local chart path without Chart.yaml is rejected", () => {
  const dir = mkdtempSync(join(tmpdir(), "hh-spec-"));
  rejects(
    { ...base, chart: { path: dir } },
    "chart.path",
    `chart.path ${JSON.stringify(dir)} is invalid: no readable chart there (need a directory with Chart.yaml or a packaged .tgz)`,
  );
  mkdirSync(join(dir, "c"));
  writeFileSync(join(dir, "c", "Chart.yaml"), "apiVersion: v2\nname: c\nversion: 0.1.0\n");
  assert.deepEqual(validateSpec({ ...base, chart: { path: join(dir, "c") } }).chart, {
    kind: "path",
    path: join(dir, "c"),
  });
});

test("a version on a local chart is rejected", () => {
  rejects(
    { ...base, chart: { path: "/tmp", version: "1.0.0" } },
    "chart.version",
    "chart.version is not allowed with chart.path: a local chart is used as it is (its version comes from its Chart.yaml)",
  );
});

test("waitForJobs without wait is rejected", () => {
  rejects(
    { ...base, install: { wait: false, waitForJobs: true } },
    "install.waitForJobs",
    "install.waitForJobs is true but install.wait is false: waiting for Jobs needs install.wait",
  );
});

test("a spec that is not an object is rejected", () => {
  rejects(
    "cni",
    "spec",
    'spec is invalid: must be an object with at least chart and releaseName, got a string "cni"',
  );
});

test("only an https:// repository can be marked secret, and a secret one is not quoted in errors", () => {
  const message =
    "chart.secretRepo applies only to https:// chart repositories (an oci:// reference is part of helm's argv, an http:// URL crosses the network in clear): use the repository's https:// URL";
  for (const repo of ["oci://registry.example.org/t0k3n/charts", "http://charts.example.org/t0k3n"]) {
    rejects(
      { ...base, chart: { repo, name: "x", version: "1.0.0", secretRepo: true } },
      "chart.secretRepo",
      message,
    );
  }
  const ok = validateSpec({
    ...base,
    chart: { repo: "https://charts.example.org/t0k3n", name: "x", secretRepo: true },
  });
  assert.equal(ok.chart.kind === "repo" && ok.chart.secretRepo, true);
  rejects(
    { ...base, chart: { repo: "ftp://charts.example.org/t0k3n", name: "x", secretRepo: true } },
    "chart.repo",
    'chart.repo (secret) is invalid: must be an https://, http:// or oci:// URL, e.g. "https://charts.example.org" or "oci://registry.example.org/charts"',
  );
});
