/**
 * The add-on spec's secret fields (`chart.username`, `chart.password`, values): credentials are
 * refused inside a repository URL, a password goes only over verified TLS, and a secret of the
 * wrong type is described by its type, never by its content.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { validateSpec } from "../../../../core/spec/index.js";
import { baseSpec as base, repoChart, throwsSpecError } from "../../../support/spec.js";

test("a repository URL with credentials in it is refused, naming the secret fields to use instead", () => {
  assert.throws(
    () =>
      validateSpec({
        chart: { repo: "https://bob:s3cret-pass@charts.example.org", name: "cni", version: "1.0.0" },
        releaseName: "cni",
      }),
    {
      name: "SpecError",
      message:
        "chart.repo must not carry credentials (user:password@): give them as chart.username and chart.password, which are kept secret",
    },
  );
});

test("a password or values of the wrong type are described by type only, never by content", () => {
  assert.throws(
    () =>
      validateSpec({
        chart: { repo: "https://charts.example.org", name: "cni", username: "bob", password: 12345678 },
        releaseName: "cni",
      }),
    {
      message:
        "chart.password is invalid: must be a non-empty string, got a number (a secret field: its content is never shown)",
    },
  );
  assert.throws(
    () =>
      validateSpec({
        chart: { repo: "https://charts.example.org", name: "cni", version: "1.0.0" },
        releaseName: "cni",
        values: "token: hunter2-secret",
      }),
    {
      message:
        "values is invalid: must be a plain object of chart values, e.g. { replicaCount: 2 }, got a string (a secret field: its content is never shown)",
    },
  );
});

const EXAMPLE_REPOS = 'e.g. "https://charts.example.org" or "oci://registry.example.org/charts"';
const DROP_AUTH = "or leave out chart.username and chart.password";
const creds = { username: "ci", password: "s3cret-repo-pass" };

/** Repository inputs that must be refused: the spec's chart, the field and the exact message. */
const BAD_REPOS: ReadonlyArray<{
  what: string;
  chart: Record<string, unknown>;
  field: string;
  message: string;
}> = [
  {
    what: "a password over an http:// repository",
    chart: { repo: "http://charts.example.org", name: "cni", ...creds },
    field: "chart.repo",
    message: `chart.repo "http://charts.example.org" is plain HTTP, so chart.password would cross the network in clear: use an https:// URL, ${DROP_AUTH}`,
  },
  {
    what: "a password over an HTTP:// repository in capitals",
    chart: { repo: "HTTP://charts.example.org/", name: "cni", ...creds },
    field: "chart.repo",
    message: `chart.repo "HTTP://charts.example.org" is plain HTTP, so chart.password would cross the network in clear: use an https:// URL, ${DROP_AUTH}`,
  },
  {
    what: "a password to an oci:// registry with plainHttp",
    chart: { repo: "oci://registry.example.org/charts", name: "cni", plainHttp: true, ...creds },
    field: "chart.plainHttp",
    message: `chart.plainHttp is true, so chart.password would cross the network in clear: serve the registry over TLS and drop chart.plainHttp, ${DROP_AUTH}`,
  },
  {
    what: "a password with insecureSkipTlsVerify",
    chart: { repo: "https://charts.example.org", name: "cni", insecureSkipTlsVerify: true, ...creds },
    field: "chart.insecureSkipTlsVerify",
    message: `chart.insecureSkipTlsVerify is true, so chart.password would go to a server whose certificate is not checked: give its CA in chart.caFile instead, ${DROP_AUTH}`,
  },
  {
    what: "a password to an oci:// registry with insecureSkipTlsVerify",
    chart: { repo: "oci://registry.example.org/charts", name: "cni", insecureSkipTlsVerify: true, ...creds },
    field: "chart.insecureSkipTlsVerify",
    message: `chart.insecureSkipTlsVerify is true, so chart.password would go to a server whose certificate is not checked: give its CA in chart.caFile instead, ${DROP_AUTH}`,
  },
  {
    what: "a repository URL with a token in its query",
    chart: { repo: "https://charts.example.org/stable?token=tok-0123456789", name: "cni" },
    field: "chart.repo",
    message: `chart.repo "https://charts.example.org/stable?…" is invalid: must not carry a query or fragment (not shown: it may hold a token); give credentials as chart.username and chart.password, ${EXAMPLE_REPOS}`,
  },
  {
    what: "a repository URL with a token in its fragment",
    chart: { repo: "https://charts.example.org#tok-0123456789", name: "cni" },
    field: "chart.repo",
    message: `chart.repo "https://charts.example.org#…" is invalid: must not carry a query or fragment (not shown: it may hold a token); give credentials as chart.username and chart.password, ${EXAMPLE_REPOS}`,
  },
  {
    what: "an unparsable repository URL with userinfo and a query",
    chart: { repo: "https://bob:tok-0123456789@charts example.org?token=tok-0123456789", name: "cni" },
    field: "chart.repo",
    message: `chart.repo "https://…@charts example.org?…" is invalid: must not carry a query or fragment (not shown: it may hold a token); give credentials as chart.username and chart.password, ${EXAMPLE_REPOS}`,
  },
  {
    what: "a repository URL without a scheme, with userinfo",
    chart: { repo: "bob:tok-0123456789@charts.example.org/stable", name: "cni" },
    field: "chart.repo",
    message: `chart.repo "…@charts.example.org/stable" is invalid: must be an https://, http:// or oci:// URL, ${EXAMPLE_REPOS}`,
  },
];

for (const c of BAD_REPOS) {
  test(`${c.what} is refused with a message naming the field and the fix, without the secret`, () => {
    throwsSpecError(() => validateSpec({ ...base, chart: c.chart }), c.field, c.message);
    assert.doesNotMatch(c.message, /s3cret-repo-pass|tok-0123456789/);
  });
}

test("a password over https:// with a CA file, and plain HTTP or insecureSkipTlsVerify without a password, are accepted", () => {
  const dir = mkdtempSync(join(tmpdir(), "hh-spec-ca-"));
  const caFile = join(dir, "ca.pem");
  writeFileSync(caFile, "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
  assert.equal(validateSpec({ ...base, chart: { ...repoChart, ...creds, caFile } }).chart.kind, "repo");
  assert.equal(
    validateSpec({ ...base, chart: { ...repoChart, repo: "http://charts.example.org" } }).chart.kind,
    "repo",
  );
  const oci = {
    repo: "oci://registry.example.org/charts",
    name: "cni",
    plainHttp: true,
    insecureSkipTlsVerify: true,
  };
  assert.equal(validateSpec({ ...base, chart: oci }).chart.kind, "oci");
});
