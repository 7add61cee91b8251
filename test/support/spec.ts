/**
 * The add-on spec in unit tests: a minimal valid spec to vary one field of, and the one assertion
 * of a refused input (a `SpecError` with its exact field and message).
 *
 * @module
 */
import assert from "node:assert/strict";
import { SpecError } from "../../core/errors.js";

/** A valid repository chart. */
export const repoChart = { repo: "https://charts.example.org", name: "cni", version: "1.2.3" } as const;

/** A kubeconfig with a token, for tests that only parse it (its server is never called). */
export const tokenKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
users: [{name: u, user: {token: abc}}]
`;

/** The smallest valid spec: {@link repoChart} released as `cni`. */
export const baseSpec = { chart: repoChart, releaseName: "cni" } as const;

/** Asserts that `fn` throws a `SpecError` (code `SPEC_INVALID`) with exactly `field` and `message`. */
export function throwsSpecError(fn: () => unknown, field: string, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SpecError, `expected a SpecError, got ${String(e)}`);
    assert.equal(e.message, message);
    assert.equal(e.field, field);
    assert.equal(e.code, "SPEC_INVALID");
    return true;
  });
}
