/**
 * The rule a Reconcile delete asks before uninstalling (`provider/same-cluster.ts`): the
 * kube-system UID recorded at create against the one behind the kubeconfig now, and the releases a
 * create in this process took over.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { recordRelease, uninstallVerdict } from "../provider/same-cluster.js";

test("a resource created before UIDs were recorded is uninstalled as before", () => {
  assert.deepEqual(uninstallVerdict(undefined, "uid-a", "default", "old"), { uninstall: true });
});

test("a UID that cannot be read now keeps the uninstall", () => {
  assert.deepEqual(uninstallVerdict("uid-a", undefined, "default", "unread"), { uninstall: true });
});

test("the recorded cluster with no replacement on it is uninstalled (destroy, or a replacement on another cluster)", () => {
  recordRelease("uid-b", "default", "moved");
  assert.deepEqual(uninstallVerdict("uid-a", "uid-a", "default", "moved"), { uninstall: true });
});

test("a release its replacement took over on the same cluster is not uninstalled", () => {
  recordRelease("uid-a", "default", "same");
  assert.deepEqual(uninstallVerdict("uid-a", "uid-a", "default", "same"), {
    uninstall: false,
    reason:
      "its replacement manages release default/same on the same cluster (kube-system UID uid-a); not uninstalling it",
  });
  assert.deepEqual(uninstallVerdict("uid-a", "uid-a", "other", "same"), { uninstall: true });
});

test("a kubeconfig that now reaches another cluster uninstalls nothing there", () => {
  assert.deepEqual(uninstallVerdict("uid-a", "uid-c", "default", "elsewhere"), {
    uninstall: false,
    reason:
      "the kubeconfig now reaches another cluster (kube-system UID uid-c, recorded uid-a); the release is not uninstalled there",
  });
});

test("a create whose UID could not be read records nothing", () => {
  recordRelease(undefined, "default", "unknown");
  assert.deepEqual(uninstallVerdict("uid-a", "uid-a", "default", "unknown"), { uninstall: true });
});
