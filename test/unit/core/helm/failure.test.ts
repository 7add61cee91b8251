/**
 * A helm write that exits 0 but could not record the release's state (core/helm/failure.ts): found
 * by the fault campaign (`npm run chaos`, seeds 5060 and 5125), where `helm install` printed the
 * release deployed while its storage Secret stayed `pending-install`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TransientHelmError } from "../../../../core/errors.js";
import { unrecordedRelease } from "../../../../core/helm/failure.js";
import { Redactor } from "../../../../core/helm/redact.js";

test("seeds 5060 and 5125: a helm install that could not record the release is a transient failure", () => {
  const stderr =
    'level=ERROR msg="failed to record the release" error="update: failed to update: Put \\"https://127.0.0.1:1/api/v1/namespaces/default/secrets/sh.helm.release.v1.cni.v1\\": write: broken pipe"\n';
  const error = unrecordedRelease(["helm", "install", "cni", "./cni"], stderr, new Redactor());
  assert.ok(error instanceof TransientHelmError);
  assert.equal(
    error.message.split("\n")[0],
    `helm install exited with code 0 (transient: helm applied the release but could not record its state): ${stderr.trim()}`,
  );
});

test("a helm call whose stderr says nothing of recording is no failure", () => {
  assert.equal(unrecordedRelease(["helm", "install", "cni", "./cni"], "", new Redactor()), undefined);
});
