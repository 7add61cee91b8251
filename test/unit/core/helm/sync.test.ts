import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { HELM_ENV_ALLOWED } from "../../../../core/helm/env.js";
import { helmTemplateSync, helmVersionSync } from "../../../../core/helm/index.js";
import { validateSpec } from "../../../../core/spec/index.js";

// The synchronous runner of the cdk8s construct shares everything but the spawn with the async
// one: these tests pin the rules that had drifted between the two copies.

let root = "";
let savedTmp: string | undefined;

before(() => {
  root = mkdtempSync(join(tmpdir(), "hh-helm-sync-test-"));
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = join(root, "tmp");
  mkdirSync(process.env.TMPDIR);
  mkdirSync(join(root, "chart"));
  writeFileSync(join(root, "chart", "Chart.yaml"), "apiVersion: v2\nname: chart\nversion: 0.1.0\n");
});

after(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

/** A fake helm v4 that writes its environment to `env.log` and prints a ConfigMap for `template`. */
function fakeHelm(): { bin: string; envLog: string } {
  const d = join(root, "fake");
  mkdirSync(d, { recursive: true });
  const envLog = join(d, "env.log");
  const bin = join(d, "helm");
  writeFileSync(
    bin,
    `#!/bin/sh
env > "${envLog}"
case "$1" in
  version) printf 'v4.9.9'; exit 0 ;;
  template) echo 'kind: ConfigMap'; exit 0 ;;
  *) echo "level=ERROR msg=boom" >&2; echo "Error: boom" >&2; exit 1 ;;
esac
`,
  );
  chmodSync(bin, 0o755);
  return { bin, envLog };
}

/** Variables that would point helm at another cluster, identity or storage, or leak to a chart's hooks. */
const FOREIGN_ENV = {
  HELM_DRIVER_SQL_CONNECTION_STRING: "postgres://user:pw@db/helm",
  HELM_KUBEAPISERVER: "https://127.0.0.1:1",
  HELM_KUBETOKEN: "token-from-the-environment",
  HELM_KUBEASUSER: "someone-else",
  HELM_KUBEINSECURE_SKIP_TLS_VERIFY: "true",
  HELM_DRIVER: "memory",
  KUBECONFIG: "/nonexistent/kubeconfig",
  PULUMI_ACCESS_TOKEN: "pul-0123456789abcdef",
};

test("the synchronous runner gives helm the same allowlisted environment as the async one", () => {
  const { bin, envLog } = fakeHelm();
  const saved = { ...process.env };
  Object.assign(process.env, FOREIGN_ENV, { HTTPS_PROXY: "http://proxy.example:3128" });
  delete process.env.GOMAXPROCS;
  try {
    assert.equal(helmVersionSync(bin), "v4.9.9");
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
  const env = readFileSync(envLog, "utf8").split("\n");
  const names = env.map((l) => l.slice(0, l.indexOf("=")));
  assert.deepEqual(
    names.filter((n) => n in FOREIGN_ENV),
    [],
  );
  assert.ok(env.includes("GOMAXPROCS=1"));
  assert.ok(env.includes("HTTPS_PROXY=http://proxy.example:3128"));
  assert.deepEqual(
    names.filter(
      (n) =>
        n !== "" &&
        !HELM_ENV_ALLOWED.has(n) &&
        !/^(HELM_(CACHE|CONFIG|DATA)_HOME|DOCKER_CONFIG|PWD|SHLVL|_)$/.test(n),
    ),
    [],
    "nothing but the allowlist, helm's homes, the call's DOCKER_CONFIG and what the shell itself sets",
  );
  assert.ok(
    env.some((l) => /^DOCKER_CONFIG=.*\/helm-handoff-[A-Za-z0-9]{6}\/registry$/.test(l)),
    "DOCKER_CONFIG is the call dir's registry config",
  );
});

test("the synchronous runner's call dirs use the swept name and are removed after the call", () => {
  const { bin } = fakeHelm();
  const spec = validateSpec({ chart: { path: join(root, "chart") }, releaseName: "x", values: { a: "b" } });
  assert.equal(helmTemplateSync(bin, spec), "kind: ConfigMap\n");
  assert.deepEqual(readdirSync(process.env.TMPDIR ?? ""), []);
});

test("a stale call dir of a dead process is swept by the synchronous runner", () => {
  // the sweep runs once per temp root and process: use a new root
  const fresh = join(root, "tmp-sweep");
  mkdirSync(fresh);
  process.env.TMPDIR = fresh;
  const stale = join(fresh, "helm-handoff-AbC123");
  mkdirSync(stale);
  writeFileSync(join(stale, "owner.pid"), "999999999");
  writeFileSync(join(stale, "repositories.yaml"), "password: s3cret");
  const { bin } = fakeHelm();
  helmVersionSync(bin);
  assert.deepEqual(readdirSync(fresh), []);
});

test("the synchronous runner drops helm's level= log lines like the async one", () => {
  const { bin } = fakeHelm();
  const spec = validateSpec({
    chart: {
      repo: "https://charts.example.org",
      name: "c",
      version: "1.0.0",
      username: "u",
      password: "pw-s3cret",
    },
    releaseName: "x",
  });
  assert.throws(() => helmTemplateSync(bin, spec), {
    name: "PermanentHelmError",
    stderr: "Error: boom",
  });
});
