/**
 * provider/steps/check.ts without an engine or a cluster: an installed ApplyOnce add-on keeps the
 * inputs the strategy table freezes and its desired digest as stored, whatever the program now
 * asks (so its stored state does not change), and says the change is ignored; a new add-on, a
 * change of strategy and another cluster take the new inputs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { desiredDigestOf } from "../../../../provider/state/encode.js";
import type { ReleaseInputs } from "../../../../provider/state/shape.js";
import { check } from "../../../../provider/steps/index.js";

type Inputs = ReleaseInputs & Record<string, unknown>;

/** The stored inputs of an add-on of chart version `version` with `values`, its digest made as this version makes it. */
function stored(
  version: string,
  values: Record<string, unknown>,
  extra: Partial<ReleaseInputs> = {},
): Inputs {
  const base = {
    kubeconfig: "kubeconfig",
    clusterId: "cluster-1",
    clusterServer: "https://127.0.0.1:6443",
    strategy: "ApplyOnce" as const,
    releaseName: "cni",
    namespace: "kube-system",
    spec: {
      chart: { repo: "https://charts.example.org", name: "cni", version },
      createNamespace: false,
      adopt: false,
      install: {},
      retry: {},
    },
    values,
    chartPassword: "",
    chartRepo: "",
    ownerId: "o".repeat(40),
    ownerName: "p.s.cni",
    ownerKey: "owner-key",
    ...extra,
  };
  return {
    ...base,
    desiredDigest: desiredDigestOf(base.spec, base.values, base.namespace, base.releaseName),
  };
}

/** Runs `fn` and returns what it wrote to stderr. */
async function stderrOf(fn: () => Promise<unknown>): Promise<string> {
  const write = process.stderr.write.bind(process.stderr);
  let text = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    await fn();
  } finally {
    process.stderr.write = write;
  }
  return text;
}

test("an installed ApplyOnce add-on keeps its frozen inputs and digest as stored when the spec changes, and says the change is ignored", async () => {
  const olds = stored("1.0.0", { a: 1 });
  const news = stored("2.0.0", { a: 2 }, { kubeconfig: "rotated" });
  let result: Awaited<ReturnType<typeof check>> | undefined;
  const printed = await stderrOf(async () => {
    result = await check(olds, news);
  });
  assert.deepEqual(result, { inputs: { ...olds, kubeconfig: "rotated" } });
  assert.equal(
    printed,
    "[helm-handoff] cni: ApplyOnce: the spec changed but is ignored after handoff (release kube-system/cni)\n",
  );
  const same = await stderrOf(() => check(olds, stored("1.0.0", { a: 1 })));
  assert.equal(same, "", "nothing is said when nothing changed");
});

test("a new add-on, a change of strategy and another cluster take the inputs as the program gives them", async () => {
  const olds = stored("1.0.0", { a: 1 });
  const next = stored("2.0.0", { a: 2 });
  // (A plain owner id no other check of this process has seen: a new resource.)
  const fresh = { ...next, ownerId: "a-new-add-on" };
  const { ownerKey, ...created } = (await check({} as Inputs, fresh)).inputs as Inputs;
  const { ownerKey: _fromProgram, ...given } = fresh;
  assert.deepEqual(created, given);
  assert.match(String(ownerKey), /^[A-Za-z0-9_-]{43}$/);
  const reconcile = { ...next, strategy: "Reconcile" as const };
  assert.deepEqual(await check(olds, reconcile), { inputs: reconcile });
  assert.deepEqual(await check({ ...olds, strategy: "Reconcile" }, next), { inputs: next });
  const moved = { ...next, clusterId: "cluster-2" };
  assert.deepEqual(await check(olds, moved), { inputs: moved });
});

test("a new add-on gets an owner key, and every later check (a replacement's too) keeps the stored one", async () => {
  const olds = { ...stored("1.0.0", { a: 1 }), ownerId: "keyed", ownerKey: "stored-key" };
  const fromProgram = { ...stored("2.0.0", { a: 2 }), ownerId: "keyed", ownerKey: "a-new-random-key" };
  const made = ((await check({} as Inputs, fromProgram)).inputs as Inputs).ownerKey;
  assert.match(String(made), /^[A-Za-z0-9_-]{43}$/);
  assert.equal(
    ((await check({} as Inputs, fromProgram)).inputs as Inputs).ownerKey,
    made,
    "made again the same",
  );
  const otherKubeconfig = { ...fromProgram, kubeconfig: "another" };
  assert.notEqual(((await check({} as Inputs, otherKubeconfig)).inputs as Inputs).ownerKey, made);
  assert.equal(((await check(olds, fromProgram)).inputs as Inputs).ownerKey, "stored-key");
  const moved = { ...fromProgram, clusterId: "cluster-2" };
  assert.equal(((await check(olds, moved)).inputs as Inputs).ownerKey, "stored-key", "replaced: same key");
  // The engine checks a replacement again without olds (to make defaults anew): it keeps the key.
  assert.equal(((await check({} as Inputs, moved)).inputs as Inputs).ownerKey, "stored-key");
});
