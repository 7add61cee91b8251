import assert from "node:assert/strict";
import { test } from "node:test";
import { makeHelmError } from "../../../../core/errors.js";
import type { HelmRunner, ReleaseInfo, ReleaseRevision } from "../../../../core/helm/index.js";
import { ensureRelease } from "../../../../core/lifecycle/ensure.js";
import { OwnershipError, ownerLabels, type ReleaseOwner } from "../../../../core/lifecycle/ownership.js";
import type { ProgressEvent } from "../../../../core/lifecycle/progress.js";
import { removeRelease } from "../../../../core/lifecycle/remove.js";
import { validateSpec } from "../../../../core/spec/index.js";

const OWNER: ReleaseOwner = { id: "a".repeat(40), name: "platform.prod.x", instance: "1111" };
const OTHER: ReleaseOwner = { id: "b".repeat(40), name: "platform.staging.x", instance: "2222" };

/** A release as helm reports it, its current revision marked by `by` (`null`: unmarked). */
function release(
  status: string,
  revision = 1,
  by: ReleaseOwner | null = OWNER,
  extra: Partial<ReleaseInfo> = {},
): ReleaseInfo {
  return {
    name: "x",
    namespace: "default",
    revision,
    status,
    chart: "tiny",
    chartVersion: "0.1.0",
    appVersion: "1.0.0",
    firstDeployed: "2024-01-01T00:00:00Z",
    lastDeployed: "2024-01-01T00:00:00Z",
    description: "",
    labels: by !== null ? ownerLabels(by, revision) : {},
    ...extra,
  };
}

/** A scripted fake of the runner (no kubeconfig: the /readyz wait is skipped). */
function fakeRunner(script: {
  /** What each status call returns; a function is called with the description of the last rollback. */
  status: (ReleaseInfo | undefined | ((rollbackDescription: string) => ReleaseInfo))[];
  install: (() => ReleaseInfo)[];
  history?: ReleaseRevision[];
}) {
  const calls: string[] = [];
  let rollbackDescription = "";
  const runner = {
    kubeconfig: undefined,
    redact: (s: string) => s,
    status: async () => {
      calls.push("status");
      const next = script.status.length > 1 ? script.status.shift() : script.status[0];
      return typeof next === "function" ? next(rollbackDescription) : next;
    },
    install: async () => {
      calls.push("install");
      const next = script.install.shift();
      if (next === undefined) throw new Error("unexpected install");
      return next();
    },
    history: async () => {
      calls.push("history");
      return script.history ?? [];
    },
    patchReleaseLabels: async (_n: string, _ns: string, revision: number, labels: Record<string, string>) => {
      calls.push(`relabel ${revision} ${labels["helm-handoff.dev/revision"]}`);
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
    rollback: async (_n: string, _ns: string, _revision: number, options: { description?: string }) => {
      calls.push("rollback");
      rollbackDescription = options.description ?? "";
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
  const result = await ensureRelease(runner, spec, { owner: OWNER });
  assert.equal(result.action, "installed");
  assert.deepEqual(calls, ["install"]);
});

test("ApplyOnce adopts a deployed release without upgrading it", async () => {
  const { runner, calls } = fakeRunner({ status: [release("deployed", 4)], install: [nameInUse] });
  const messages: string[] = [];
  const result = await ensureRelease(runner, spec, {
    owner: OWNER,
    onProgress: (e) => messages.push(e.message),
  });
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
    owner: OWNER,
    onProgress: (e: ProgressEvent) => phases.push(e.phase),
  });
  assert.equal(result.attempts, 2);
  assert.equal(result.action, "installed");
  // The partial release is gone, so the next attempt installs straight away too.
  assert.deepEqual(calls, ["install", "status", "history", "status", "uninstall", "install"]);
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
  await assert.rejects(ensureRelease(runner, spec, { owner: OWNER }), { name: "PermanentHelmError" });
  assert.deepEqual(calls, ["install", "status", "history", "status", "uninstall"]);
});

test("a failed release that was never deployed is uninstalled before installing", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("failed"), release("failed"), undefined],
    install: [nameInUse, () => release("deployed")],
  });
  const result = await ensureRelease(runner, spec, { owner: OWNER });
  assert.equal(result.action, "installed");
  assert.deepEqual(calls, ["install", "status", "history", "status", "uninstall", "status", "install"]);
});

test("an update looks at the release first instead of trying an install", async () => {
  const { runner, calls } = fakeRunner({ status: [release("deployed", 4)], install: [] });
  const result = await ensureRelease(runner, spec, {
    owner: OWNER,
    expectExisting: true,
  });
  assert.equal(result.action, "adopted");
  assert.deepEqual(calls, ["status"]);
});

test("ApplyOnce adopts a failed release whose current revision someone else wrote, with no helm write", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("failed", 3, OWNER, { labels: ownerLabels(OWNER, 2) })],
    install: [nameInUse],
  });
  const events: ProgressEvent[] = [];
  const result = await ensureRelease(runner, spec, { owner: OWNER, onProgress: (e) => events.push(e) });
  assert.equal(result.action, "adopted");
  assert.equal(result.release.status, "failed");
  assert.equal(result.release.revision, 3);
  assert.deepEqual(calls, ["install", "status"]);
  assert.ok(
    events.some(
      (e) =>
        e.message ===
        "release default/x is failed at revision 3 and revision 3 was written by someone else on top of this resource's revision 2 (a person's helm upgrade or rollback, or a GitOps controller that took the release over): adopting it as it is, no helm write",
    ),
  );
});

test("ApplyOnce adopts a pending release someone else is working on instead of waiting for it", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("pending-upgrade", 5, null)],
    install: [nameInUse],
  });
  const result = await ensureRelease(runner, spec, { owner: OWNER });
  assert.equal(result.action, "adopted");
  assert.equal(result.release.status, "pending-upgrade");
  assert.deepEqual(calls, ["install", "status"]);
});

const reconcile = validateSpec({ ...specInput, strategy: "Reconcile" });

test("Reconcile repairs a failed release of its own", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("failed"), release("failed"), undefined],
    install: [nameInUse, () => release("deployed")],
  });
  const result = await ensureRelease(runner, reconcile, { owner: OWNER });
  assert.equal(result.action, "installed");
  assert.deepEqual(calls, ["install", "status", "history", "status", "uninstall", "status", "install"]);
});

test("Reconcile refuses a release another stack wrote, naming it, with no helm write", async () => {
  const { runner, calls } = fakeRunner({ status: [release("deployed", 2, OTHER)], install: [nameInUse] });
  await assert.rejects(ensureRelease(runner, reconcile, { owner: OWNER }), (e: unknown) => {
    assert.ok(e instanceof OwnershipError);
    assert.equal(e.code, "RELEASE_NOT_OURS");
    assert.equal(
      e.message,
      `release default/x is not this resource's: revision 2 was written by another helm-handoff resource (platform.staging.x, owner id ${"b".repeat(40)}). Reconcile writes only to releases it wrote, so it neither upgrades nor removes this one. To leave it to its owner, use strategy "ApplyOnce" (which adopts it as it is) or another releaseName; to have this resource take it over, set adopt: true.`,
    );
    return true;
  });
  assert.deepEqual(calls, ["install", "status"]);
});

test("Reconcile refuses a failed release that helm-handoff did not write instead of repairing it", async () => {
  const { runner, calls } = fakeRunner({ status: [release("failed", 1, null)], install: [nameInUse] });
  await assert.rejects(ensureRelease(runner, reconcile, { owner: OWNER }), {
    name: "OwnershipError",
    message: /revision 1 was not written by helm-handoff \(no helm-handoff.dev\/owner label/,
  });
  assert.deepEqual(calls, ["install", "status"]);
});

const SUPERSEDED_1: ReleaseRevision = {
  revision: 1,
  updated: "",
  status: "superseded",
  chart: "tiny-0.1.0",
  appVersion: "",
  description: "",
};

test("a write re-reads the release first and looks again when someone else wrote in between", async () => {
  // Seen failed at revision 2 (ours); by the time of the rollback, a GitOps upgrade made revision 3.
  const gitops = release("deployed", 3, OWNER, { labels: ownerLabels(OWNER, 2) });
  const { runner, calls } = fakeRunner({
    status: [release("failed", 2), gitops],
    install: [nameInUse, nameInUse],
    history: [SUPERSEDED_1],
  });
  const result = await ensureRelease(runner, spec, { owner: OWNER });
  assert.equal(result.action, "adopted");
  assert.equal(result.release.revision, 3);
  assert.equal(result.attempts, 2);
  assert.deepEqual(calls, ["install", "status", "history", "status", "install", "status"]);
});

test("a recovery rollback marks the revision it creates as ours again", async () => {
  // helm copies the target's labels: revision 3 (with our rollback's description) carries revision 1's marks.
  const rolledBack = (description: string) =>
    release("deployed", 3, OWNER, { labels: ownerLabels(OWNER, 1), description });
  const { runner, calls } = fakeRunner({
    status: [release("failed", 2), release("failed", 2), rolledBack, release("deployed", 3)],
    install: [nameInUse],
    history: [SUPERSEDED_1],
  });
  const result = await ensureRelease(runner, spec, { owner: OWNER });
  assert.equal(result.action, "unchanged");
  assert.deepEqual(calls, [
    "install",
    "status",
    "history",
    "status",
    "rollback",
    "status",
    "relabel 3 3",
    "status",
  ]);
});

test("a failed install leaves a release of that name that someone else wrote as it is", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("failed", 1, null)],
    install: [failure("permanent", "Error: INSTALLATION FAILED: chart not found")],
  });
  const messages: string[] = [];
  await assert.rejects(
    ensureRelease(runner, spec, { owner: OWNER, onProgress: (e) => messages.push(e.message) }),
    { name: "PermanentHelmError" },
  );
  assert.deepEqual(calls, ["install", "status"]);
  assert.ok(
    messages.includes(
      "install of default/x failed; the release of that name is failed and revision 1 was not written by helm-handoff (no helm-handoff.dev/owner label: a person, a GitOps controller or another tool installed it): leaving it as it is",
    ),
    messages.join("\n"),
  );
});

test("a release uninstalled with --keep-history fails at once, saying how to remove its history", async () => {
  const { runner, calls } = fakeRunner({
    status: [release("uninstalled", 2, null)],
    install: [nameInUse],
  });
  await assert.rejects(ensureRelease(runner, spec, { owner: OWNER }), {
    name: "HelmHandoffError",
    message:
      'release default/x was uninstalled with --keep-history (revision 2), and helm will not install under that name while its history remains: remove the history with "helm uninstall x -n default" (on an uninstalled release it deletes the kept history), or choose another releaseName',
  });
  assert.deepEqual(calls, ["install", "status"]);
});

test("a delete uninstalls only a release this instance wrote, and leaves its replacement's", async () => {
  const mine = fakeRunner({ status: [release("deployed", 1)], install: [] });
  assert.equal(await removeRelease(mine.runner, "x", "default", { owner: OWNER }), "uninstalled");
  assert.deepEqual(mine.calls, ["status", "uninstall"]);
  const replaced = fakeRunner({
    status: [release("deployed", 1, { ...OWNER, instance: "3333" })],
    install: [],
  });
  const messages: string[] = [];
  const outcome = await removeRelease(replaced.runner, "x", "default", {
    owner: OWNER,
    onProgress: (e) => messages.push(e.message),
  });
  assert.equal(outcome, "not-ours");
  assert.deepEqual(replaced.calls, ["status"]);
  assert.deepEqual(messages, [
    "leaving release default/x as it is: revision 1 was written by a newer instance of this resource (its replacement, instance 3333)",
  ]);
});

test("a delete leaves a release someone else upgraded after us, and one another stack wrote", async () => {
  const upgradedByGitops = release("deployed", 2, OWNER, { labels: ownerLabels(OWNER, 1) });
  for (const current of [upgradedByGitops, release("deployed", 1, OTHER)]) {
    const { runner, calls } = fakeRunner({ status: [current], install: [] });
    assert.equal(await removeRelease(runner, "x", "default", { owner: OWNER }), "not-ours");
    assert.deepEqual(calls, ["status"]);
  }
});
