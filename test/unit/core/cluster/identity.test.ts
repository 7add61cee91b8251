import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { stringify } from "yaml";
import { clusterIdentityFromKubeconfig } from "../../../../core/cluster/identity.js";
import { SpecError } from "../../../../core/errors.js";

let dir = "";
let caA = "";
let caB = "";

function makeCa(name: string): string {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${name}`,
      "-keyout",
      join(dir, `${name}.key`),
      "-out",
      join(dir, `${name}.crt`),
    ],
    { stdio: "ignore" },
  );
  return readFileSync(join(dir, `${name}.crt`), "utf8");
}

function kubeconfig(opts: {
  server?: string;
  ca?: string;
  caFile?: string;
  token?: string;
  user?: string;
  current?: string | null;
}): string {
  const cluster: Record<string, unknown> = { server: opts.server ?? "https://127.0.0.1:6443" };
  if (opts.ca !== undefined) cluster["certificate-authority-data"] = Buffer.from(opts.ca).toString("base64");
  if (opts.caFile !== undefined) cluster["certificate-authority"] = opts.caFile;
  const doc: Record<string, unknown> = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: opts.user ?? "admin" } }],
    users: [{ name: opts.user ?? "admin", user: { token: opts.token ?? "token-1" } }],
  };
  if (opts.current !== null) doc["current-context"] = opts.current ?? "ctx";
  return stringify(doc);
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), "hh-identity-"));
  caA = makeCa("ca-a");
  caB = makeCa("ca-b");
});

test("the identity is the server URL and the sha256 of the CA certificate's DER", () => {
  const id = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA }));
  const fp = createHash("sha256").update(new X509Certificate(caA).raw).digest("hex");
  assert.equal(id.server, "https://127.0.0.1:6443");
  assert.equal(id.caFingerprint, fp);
  const expected = createHash("sha256").update(`https://127.0.0.1:6443\n${fp}`).digest("hex").slice(0, 16);
  assert.equal(id.clusterId, `sha256:${expected}`);
});

test("the same cluster with rotated user credentials has the same identity", () => {
  const a = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA, token: "old-token", user: "admin" }));
  const b = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA, token: "new-token", user: "ci-bot" }));
  assert.deepEqual(a, b);
});

test("a CA given as a file gives the same identity as the embedded CA", () => {
  const a = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA }));
  const b = clusterIdentityFromKubeconfig(kubeconfig({ caFile: join(dir, "ca-a.crt") }));
  assert.deepEqual(a, b);
});

test("a trailing slash on the server URL does not change the identity", () => {
  const a = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA }));
  const b = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA, server: "https://127.0.0.1:6443/" }));
  assert.equal(a.clusterId, b.clusterId);
});

test("a different CA gives a different identity", () => {
  const a = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA }));
  const b = clusterIdentityFromKubeconfig(kubeconfig({ ca: caB }));
  assert.notEqual(a.clusterId, b.clusterId);
});

test("a different server gives a different identity", () => {
  const a = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA }));
  const b = clusterIdentityFromKubeconfig(kubeconfig({ ca: caA, server: "https://127.0.0.1:7443" }));
  assert.notEqual(a.clusterId, b.clusterId);
});

test("a kubeconfig that is not YAML is rejected", () => {
  assert.throws(
    () => clusterIdentityFromKubeconfig("clusters: [\n"),
    (e: unknown) => {
      assert.ok(e instanceof SpecError);
      assert.equal(e.field, "kubeconfig");
      assert.match(e.message, /^kubeconfig is not valid YAML: /);
      return true;
    },
  );
});

test("a kubeconfig that is not YAML is rejected naming the error's kind and position, not its text", () => {
  assert.throws(
    () => clusterIdentityFromKubeconfig('users: [{name: u, user: {token: "tok\\qen-secret"}}]\n'),
    {
      message:
        "kubeconfig is not valid YAML: bad dq escape at line 1, column 37 (pass the kubeconfig's content, not its path)",
    },
  );
});

test("an invalid server URL is quoted without its userinfo", () => {
  assert.throws(
    () => clusterIdentityFromKubeconfig(kubeconfig({ ca: caA, server: "https://bob:pa/ss@word@[::1" })),
    {
      message:
        'kubeconfig cluster "c" has no valid server URL (got "https://…@[::1"): set clusters[].cluster.server, e.g. "https://127.0.0.1:6443"',
    },
  );
});

test("a kubeconfig without current-context is rejected", () => {
  assert.throws(() => clusterIdentityFromKubeconfig(kubeconfig({ ca: caA, current: null })), {
    message:
      "kubeconfig has no current-context: set current-context in the kubeconfig or pass the context option",
  });
});

test("a missing context is rejected", () => {
  assert.throws(() => clusterIdentityFromKubeconfig(kubeconfig({ ca: caA }), { context: "nope" }), {
    message: 'kubeconfig context "nope" is not defined in contexts: fix current-context or add that context',
  });
});

test("a missing cluster is rejected", () => {
  const kc = kubeconfig({ ca: caA }).replace("cluster: c", "cluster: gone");
  assert.throws(() => clusterIdentityFromKubeconfig(kc), {
    message: 'kubeconfig cluster "gone" (of context "ctx") is not defined in clusters',
  });
});

test("a CA that is not a certificate is rejected", () => {
  writeFileSync(join(dir, "junk.crt"), "not a cert");
  assert.throws(() => clusterIdentityFromKubeconfig(kubeconfig({ caFile: join(dir, "junk.crt") })), {
    message: 'kubeconfig cluster "c" has a certificate authority that is not a PEM or DER certificate',
  });
});

test("a kubeconfig whose client certificate files cannot be read here still has an identity and no plain access", async () => {
  const { readKubeconfig } = await import("../../../../core/cluster/kubeconfig.js");
  const kubeconfig = stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:6443" } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
    users: [
      { name: "u", user: { "client-certificate": "/nonexistent/cert", "client-key": "/nonexistent/key" } },
    ],
  });
  assert.equal(clusterIdentityFromKubeconfig(kubeconfig).server, "https://127.0.0.1:6443");
  assert.equal(readKubeconfig(kubeconfig).plainAccess, undefined);
});

test("a kubeconfig is parsed once per process, and one naming a CA file is read again each time", async () => {
  const { readKubeconfig } = await import("../../../../core/cluster/kubeconfig.js");
  const embedded = kubeconfig({ ca: caA, token: "parsed-once" });
  assert.equal(readKubeconfig(embedded), readKubeconfig(embedded), "the same target object");
  const caFile = join(dir, "rotating.crt");
  writeFileSync(caFile, caA);
  const naming = kubeconfig({ caFile, token: "file-ca" });
  const first = readKubeconfig(naming);
  writeFileSync(caFile, caB);
  const second = readKubeconfig(naming);
  assert.notEqual(first, second);
  assert.notDeepEqual(first.caDer, second.caDer, "the rotated CA file was read again");
});

test("the identity of a kubeconfig naming a CA file follows the file at each call, in an add-on's stored inputs too", async () => {
  // The stored inputs take the identity from `readKubeconfig` on each check: a kubeconfig text
  // is parsed once, but the CA file it names is read at each call.
  const { releaseInputsOf } = await import("../../../../provider/state/encode.js");
  const caFile = join(dir, "rotating-inputs.crt");
  writeFileSync(caFile, caA);
  const naming = kubeconfig({ caFile, token: "file-ca-inputs" });
  const urn = "urn:pulumi:dev::p::helm-handoff:index:ClusterAddon::cni";
  const inputsOf = () =>
    releaseInputsOf(
      "cni",
      { kubeconfig: naming, chart: { repo: "https://charts.example.org", name: "cni" } },
      urn,
    );
  const first = clusterIdentityFromKubeconfig(naming);
  assert.equal(inputsOf().clusterId, first.clusterId);
  writeFileSync(caFile, caB);
  const second = clusterIdentityFromKubeconfig(naming);
  assert.notEqual(second.clusterId, first.clusterId, "the rotated CA file was read again");
  assert.equal(inputsOf().clusterId, second.clusterId, "and so was it for the stored inputs");
  // The same embedded text gives equal identities, each a copy of its own.
  const embedded = kubeconfig({ ca: caA, token: "identity-once" });
  const a = clusterIdentityFromKubeconfig(embedded);
  const b = clusterIdentityFromKubeconfig(embedded);
  assert.deepEqual(a, b);
  assert.notEqual(a, b);
});
