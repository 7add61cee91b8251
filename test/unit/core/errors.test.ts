import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DEADLINE_NEXT_STEP,
  DeadlineExceededError,
  HELM_NEXT_STEPS,
  HelmNotFoundError,
  HelmVersionError,
  makeHelmError,
  PermanentHelmError,
  ReleaseStateError,
  SpecError,
  TransientHelmError,
} from "../../../core/errors.js";
import { classifyHelmFailure } from "../../../core/helm/classify.js";

/**
 * stderr of helm v4.3.1, captured on the real binary (marked "captured") or taken from helm's
 * sources / well-known Kubernetes API messages (marked "known") where no cluster was available.
 */
const samples: readonly (readonly [string, "transient" | "permanent" | "state", string, string])[] = [
  // captured: helm install against a closed port
  [
    "captured",
    "transient",
    "API server or repository unreachable",
    'level=ERROR msg="cluster reachability check failed: kubernetes cluster unreachable: Get \\"https://127.0.0.1:1/version\\": dial tcp 127.0.0.1:1: connect: connection refused"\nError: INSTALLATION FAILED: cluster reachability check failed: kubernetes cluster unreachable: Get "https://127.0.0.1:1/version": dial tcp 127.0.0.1:1: connect: connection refused',
  ],
  [
    "captured",
    "transient",
    "API server or repository unreachable",
    'Error: kubernetes cluster unreachable: Get "https://127.0.0.1:1/version": dial tcp 127.0.0.1:1: connect: connection refused',
  ],
  // captured: the API server SIGKILLed while helm install --wait watched the resources
  [
    "captured",
    "transient",
    "lost the API server while waiting",
    "Error: INSTALLATION FAILED: resource ConfigMap/default/apiserver-crash-config not ready. status: Unknown, message: \nresource DaemonSet/default/apiserver-crash-ds not ready. status: Unknown, message: \nresource Deployment/default/apiserver-crash-deploy not ready. status: Unknown, message: ",
  ],
  // captured: chart repository down / 5xx
  [
    "captured",
    "transient",
    "API server or repository unreachable",
    'Error: looks like "https://127.0.0.1:1" is not a valid chart repository or cannot be reached: Get "https://127.0.0.1:1/index.yaml": dial tcp 127.0.0.1:1: connect: connection refused',
  ],
  [
    "captured",
    "transient",
    "server error (5xx)",
    'Error: looks like "http://127.0.0.1:18080/503" is not a valid chart repository or cannot be reached: failed to fetch http://127.0.0.1:18080/503/index.yaml : 503 Service Unavailable',
  ],
  [
    "captured",
    "transient",
    "API server or repository unreachable",
    'Error: failed to perform "FetchReference" on source: Get "https://127.0.0.1:1/v2/charts/nosuch/manifests/1.0.0": dial tcp 127.0.0.1:1: connect: connection refused',
  ],
  // known: API server / CRD / webhook states
  [
    "known",
    "transient",
    "API server or repository unreachable",
    'Error: Get "https://10.0.0.1:6443/version": net/http: TLS handshake timeout',
  ],
  [
    "known",
    "transient",
    "API server or repository unreachable",
    'Error: Get "https://10.0.0.1:6443/api": dial tcp 10.0.0.1:6443: i/o timeout',
  ],
  [
    "known",
    "transient",
    "API server or repository unreachable",
    'Error: Get "https://10.0.0.1:6443/version": EOF',
  ],
  [
    "known",
    "transient",
    "API server or repository unreachable",
    "Error: dial tcp 10.0.0.1:6443: connect: no route to host",
  ],
  [
    "known",
    "transient",
    "server error (5xx)",
    "Error: INSTALLATION FAILED: the server is currently unable to handle the request",
  ],
  ["known", "transient", "server error (5xx)", "Error: INSTALLATION FAILED: etcdserver: request timed out"],
  [
    "known",
    "transient",
    "CRD not established yet",
    'Error: INSTALLATION FAILED: unable to build kubernetes objects from release manifest: resource mapping not found for name: "w" namespace: "" from "": no matches for kind "Widget" in version "example.com/v1"\nensure CRDs are installed first',
  ],
  [
    "known",
    "transient",
    "webhook not reachable",
    'Error: INSTALLATION FAILED: Internal error occurred: failed calling webhook "validate.example.com": failed to call webhook: Post "https://svc.ns.svc:443/validate?timeout=10s": no endpoints available for service "svc"',
  ],
  ["known", "transient", "timed out waiting", "Error: INSTALLATION FAILED: context deadline exceeded"],
  // captured: schema and template errors
  [
    "captured",
    "permanent",
    "values do not meet the chart's schema",
    "Error: INSTALLATION FAILED: values don't meet the specifications of the schema(s) in the following chart(s):\ntiny:\n- at '/replicaCount': got string, want integer",
  ],
  [
    "captured",
    "permanent",
    "template error",
    "Error: execution error at (tiny/templates/req.yaml:1:17): foo is required\n\nUse --debug flag to render out invalid YAML",
  ],
  [
    "captured",
    "permanent",
    "template error",
    "Error: parse error at (tiny/templates/parse.yaml:1): missing value for if\n\nUse --debug flag to render out invalid YAML",
  ],
  // captured: chart / version not found at a reachable repository
  [
    "captured",
    "permanent",
    "chart or version not found",
    'Error: chart "tiny" version "9.9.9" not found in http://127.0.0.1:18080/ok repository',
  ],
  [
    "captured",
    "permanent",
    "chart or version not found",
    'Error: chart "nosuch" not found in http://127.0.0.1:18080/ok repository',
  ],
  [
    "captured",
    "permanent",
    "chart or version not found",
    'Error: looks like "http://127.0.0.1:18080/nope" is not a valid chart repository or cannot be reached: failed to fetch http://127.0.0.1:18080/nope/index.yaml : 404 Not Found',
  ],
  [
    "captured",
    "permanent",
    "chart or version not found",
    'Error: failed to perform "FetchReference" on source: 127.0.0.1:18080/charts/tiny:1.0.0: not found',
  ],
  ["captured", "permanent", "chart or version not found", 'Error: path "./nonexist" not found'],
  // captured: credentials
  [
    "captured",
    "permanent",
    "credentials rejected (401/403)",
    'Error: looks like "http://127.0.0.1:18080/401" is not a valid chart repository or cannot be reached: failed to fetch http://127.0.0.1:18080/401/index.yaml : 401 Unauthorized',
  ],
  [
    "captured",
    "permanent",
    "credentials rejected (401/403)",
    'Error: looks like "http://127.0.0.1:18080/403" is not a valid chart repository or cannot be reached: failed to fetch http://127.0.0.1:18080/403/index.yaml : 403 Forbidden',
  ],
  [
    "captured",
    "permanent",
    "credentials rejected (401/403)",
    'Error: failed to perform "FetchReference" on source: GET "http://127.0.0.1:18080/v2/charts/denied/manifests/1.0.0": basic credential not found',
  ],
  ["known", "permanent", "credentials rejected (401/403)", "Error: INSTALLATION FAILED: Unauthorized"],
  [
    "known",
    "permanent",
    "credentials rejected (401/403)",
    'Error: INSTALLATION FAILED: secrets is forbidden: User "bob" cannot create resource "secrets" in API group "" in the namespace "default"',
  ],
  // captured: invalid name and kubeconfig errors
  [
    "captured",
    "permanent",
    "invalid release name",
    'Error: INSTALLATION FAILED: release name check failed: release name "Foo": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53',
  ],
  [
    "captured",
    "permanent",
    "kubeconfig invalid",
    "Error: INSTALLATION FAILED: cluster reachability check failed: kubernetes cluster unreachable: invalid configuration: context was not found for specified context: nope",
  ],
  [
    "captured",
    "permanent",
    "kubeconfig invalid",
    'Error: INSTALLATION FAILED: cluster reachability check failed: kubernetes cluster unreachable: error loading config file "kc2": yaml: line 1: did not find expected node content',
  ],
  // captured: helm install of a name that has a release (helm v4 spelling), then helm v3's
  [
    "captured",
    "state",
    "release name in use",
    "Error: INSTALLATION FAILED: release name check failed: cannot reuse a name that is still in use",
  ],
  [
    "known",
    "state",
    "release name in use",
    "Error: INSTALLATION FAILED: cannot re-use a name that is still in use",
  ],
  [
    "known",
    "state",
    "another operation in progress",
    "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress",
  ],
  [
    "known",
    "state",
    "release has no deployed revision",
    'Error: UPGRADE FAILED: "cni" has no deployed releases',
  ],
];

for (const [origin, kind, reason, stderr] of samples) {
  const firstError = stderr.split("\n").find((l) => l.startsWith("Error:")) ?? stderr;
  test(`${kind}: ${firstError.slice(0, 90)} (${origin})`, () => {
    assert.deepEqual(classifyHelmFailure(stderr), { kind, reason });
  });
}

test("unknown stderr is permanent so a retry loop never spins on it", () => {
  assert.deepEqual(classifyHelmFailure("Error: something nobody has seen before"), {
    kind: "permanent",
    reason: "unrecognized helm error",
  });
  assert.deepEqual(classifyHelmFailure(""), { kind: "permanent", reason: "unrecognized helm error" });
});

test("makeHelmError picks the subclass by kind and keeps command, exit code, stderr and cause", () => {
  const cause = new Error("spawn");
  const details = {
    reason: "x",
    command: ["helm", "install", "cni", "./cni"],
    exitCode: 1,
    stderr: "Error: INSTALLATION FAILED: boom",
  };
  const t = makeHelmError({ ...details, kind: "transient" }, { cause });
  assert.ok(t instanceof TransientHelmError);
  assert.equal(t.cause, cause);
  assert.equal(t.code, "HELM_TRANSIENT");
  assert.ok(makeHelmError({ ...details, kind: "state" }) instanceof ReleaseStateError);
  const p = makeHelmError({ ...details, kind: "permanent" });
  assert.ok(p instanceof PermanentHelmError);
  assert.equal(
    p.message,
    "helm install exited with code 1 (permanent: x): Error: INSTALLATION FAILED: boom\n  command: helm install cni ./cni\n" +
      `  next step: ${HELM_NEXT_STEPS.permanent}`,
  );
  assert.deepEqual(p.command, ["helm", "install", "cni", "./cni"]);
  assert.equal(p.exitCode, 1);
});

test("HelmNotFoundError tells a package user to install helm v4, put it on PATH or set HELM_HANDOFF_HELM", () => {
  const e = new HelmNotFoundError(['"helm" on PATH', "/x/bin/helm"]);
  assert.equal(
    e.message,
    'helm was not found (looked for "helm" on PATH, /x/bin/helm). helm-handoff needs helm v4: install helm v4 (https://helm.sh/docs/intro/install/) and put it on PATH, or set HELM_HANDOFF_HELM to its path (or pass the helmBinary option).',
  );
  assert.equal(e.code, "HELM_NOT_FOUND");
});

test("HelmVersionError names the version found", () => {
  assert.equal(
    new HelmVersionError("/usr/bin/helm", "v3.16.2").message,
    "helm v3.16.2 found at /usr/bin/helm, but helm-handoff needs helm v4 (v4.0.0 or later): install helm v4 (https://helm.sh/docs/intro/install/) and put it on PATH, or set HELM_HANDOFF_HELM to its path.",
  );
});

test("DeadlineExceededError lists attempts and the last cause", () => {
  const last = new Error("connection refused");
  const e = new DeadlineExceededError(
    "install of release default/cni",
    "15m",
    [
      { attempt: 1, startedAt: "2024-01-01T00:00:00.000Z", error: "dial tcp: connection refused\nmore" },
      { attempt: 2, startedAt: "2024-01-01T00:00:02.000Z", error: "connection refused" },
    ],
    last,
  );
  assert.equal(
    e.message,
    "install of release default/cni did not succeed within the deadline of 15m after 2 attempt(s):\n" +
      "  #1 at 2024-01-01T00:00:00.000Z: dial tcp: connection refused\n" +
      "  #2 at 2024-01-01T00:00:02.000Z: connection refused\n" +
      "last cause: connection refused\n" +
      `next step: ${DEADLINE_NEXT_STEP}`,
  );
  assert.equal(e.cause, last);
  assert.equal(e.lastCause, last);
});

test("SpecError carries the field", () => {
  const e = new SpecError("chart.version", "chart.version is bad");
  assert.equal(e.field, "chart.version");
  assert.equal(e.name, "SpecError");
});
