import assert from "node:assert/strict";
import { test } from "node:test";
import { makeHelmError } from "../core/errors.js";
import type { HelmRunner, ReleaseInfo } from "../core/helm/index.js";
import { ensureRelease, type ProgressEvent } from "../core/install.js";
import { OWN_REVISION_LABEL, ownRevisionLabels } from "../core/lifecycle/ownership.js";
import { validateSpec } from "../core/spec.js";

/** A release as helm reports it; `own`: its current revision carries helm-handoff's mark. */
function release(status: string, revision = 1, own = true): ReleaseInfo {
  return {
    name: "x",
    namespace: "default",
    revision,
    status,
    chartName: "tiny",
    chartVersion: "0.1.0",
    appVersion: "1.0.0",
    firstDeployed: "2024-01-01T00:00:00Z",
    lastDeployed: "2024-01-01T00:00:00Z",
    description: "",
    labels: own ? ownRevisionLabels(revision) : { [OWN_REVISION_LABEL]: "1" },
  };
}

/** A scripted fake of the runner (no kubeconfig: the /readyz wait is skipped). */
function fakeRunner(script: { status: (ReleaseInfo | undefined)[]; install: (() => ReleaseInfo)[] }) {
  const calls: string[] = [];
  const runner = {
    kubeconfig: undefined,
    redact: (s: string) => s,
    status: async () => {
      calls.push("status");
      return script.status.length > 1 ? script.status.shift() : script.status[0];
    },
    install: async () => {
      calls.push("install");
      const next = script.install.shift();
      if (next === undefined) throw new Error("unexpected install");
      return next();
    },
    history: async () => {
      calls.push("history");
      return [];
    },
    uninstall: async () => {
      calls.push("uninstall");
      return true;
    },
    upgrade: async () => {
      calls.push("upgrade");
      return release("deployed", 2);
    },
    getValues: async () => ({}),
    rollback: async () => {
      calls.push("rollback");
    },
  };
  return { runner: runner as unknown as HelmRunner, calls };
}

const failure = (kind: "transient" | "permanent", stderr: string) => () => {
  throw makeHelmError({ kind, reason: kind, command: ["helm", "install"], exitCode: 1, stderr });
};

/** helm's refusal to install over a release that has history. */
const nameInUse = () => {
  throw makeHelmError({
    kind: "state",
    reason: "release name in use",
    command: ["helm", "install"],
    exitCode: 1,
    stderr: "Error: INSTALLATION FAILED: cannot re-use a name that is still in use",
  });
};

const specInput = {
  chart: { repo: "https://charts.example.org", name: "tiny", version: "0.1.0" },
  releaseName: "x",
  retry: { deadline: "5m", minBackoff: "10ms", maxBackoff: "20ms" },
};
const spec = validateSpec(specInput);

test("a new release is installed with a single helm call, without looking for it first", async () => {
  const { runner, calls } = fakeRunner({ status: [undefined], install: [() => release("deployed")] });
  const result = await ensureRelease(runner, spec);
  assert.equal(result.action, "installed");
  assert.deepEqual(calls, ["install"]);
});

test("ApplyOnce adopts a deployed release without upgrading it", async () => {
  const { runner, calls } = fakeRunner({ status: [release("deployed", 4)], install: [nameInUse] });
  const messages: string[] = [];
  const result = await ensureRelease(runner, spec, { onProgress: (e) => messages.push(e.message) });
  assert.equal(result.adopted, true);
  assert.equal(result.action, "adopted");
  assert.equal(result.release.revision, 4);
  assert.deepEqual(calls, ["install", "status"]);
  assert.deepEqual(messages, [
    "installing default/x (attempt 1, timeout 5m)",
    "release default/x already exists: looking at it",
    "release default/x is deployed (revision 4): adopting it, no upgrade",
    "adopted default/x (revision 4, deployed) after 1 attempt(s)",
  ]);
});

test("a transient install failure is cleaned up and retried", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("failed")],
    install: [
      failure("transient", "Error: INSTALLATION FAILED: connection refused"),
      () => release("deployed"),
    ],
  });
  const phases: string[] = [];
  const result = await ensureRelease(runner, spec, {
    onProgress: (e: ProgressEvent) => phases.push(e.phase),
  });
  assert.equal(result.attempts, 2);
  assert.equal(result.action, "installed");
  // The partial release is gone, so the next attempt installs straight away too.
  assert.deepEqual(calls, ["install", "status", "history", "uninstall", "install"]);
  assert.deepEqual(phases, ["installing", "recovering", "retrying", "installing", "done"]);
});

test("a permanent install failure fails at once and leaves nothing installed", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("failed")],
    install: [
      failure(
        "permanent",
        "Error: INSTALLATION FAILED: values don't meet the specifications of the schema(s)",
      ),
    ],
  });
  await assert.rejects(ensureRelease(runner, spec), { name: "PermanentHelmError" });
  assert.deepEqual(calls, ["install", "status", "history", "uninstall"]);
});

test("a failed release that was never deployed is uninstalled before installing", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("failed"), undefined],
    install: [nameInUse, () => release("deployed")],
  });
  const result = await ensureRelease(runner, spec);
  assert.equal(result.action, "installed");
  assert.deepEqual(calls, ["install", "status", "history", "uninstall", "status", "install"]);
});

test("an update looks at the release first instead of trying an install", async () => {
  const { runner, calls } = fakeRunner({ status: [release("deployed", 4)], install: [] });
  const result = await ensureRelease(runner, spec, { expectExisting: true });
  assert.equal(result.action, "adopted");
  assert.deepEqual(calls, ["status"]);
});

test("ApplyOnce adopts a failed release whose current revision someone else wrote, with no helm write", async () => {
  const { runner, calls } = fakeRunner({ status: [release("failed", 3, false)], install: [nameInUse] });
  const events: ProgressEvent[] = [];
  const result = await ensureRelease(runner, spec, { onProgress: (e) => events.push(e) });
  assert.equal(result.action, "adopted");
  assert.equal(result.release.status, "failed");
  assert.equal(result.release.revision, 3);
  assert.deepEqual(calls, ["install", "status"]);
  assert.ok(
    events.some(
      (e) =>
        e.message ===
        "release default/x is failed at revision 3, written by someone else: adopting it as it is, no repair",
    ),
  );
});

test("ApplyOnce adopts a pending release someone else is working on instead of waiting for it", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("pending-upgrade", 5, false)],
    install: [nameInUse],
  });
  const result = await ensureRelease(runner, spec);
  assert.equal(result.action, "adopted");
  assert.equal(result.release.status, "pending-upgrade");
  assert.deepEqual(calls, ["install", "status"]);
});

test("Reconcile repairs a failed release whoever wrote it", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("failed", 1, false), undefined],
    install: [nameInUse, () => release("deployed")],
  });
  const result = await ensureRelease(runner, validateSpec({ ...specInput, strategy: "Reconcile" }));
  assert.equal(result.action, "installed");
  assert.deepEqual(calls, ["install", "status", "history", "uninstall", "status", "install"]);
});
