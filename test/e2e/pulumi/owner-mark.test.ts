/**
 * The owner mark nobody can forge, through the provider's own steps (`provider/steps/index.ts`: check
 * makes the add-on's owner key, create and update write and read the marks) on the real helm and
 * a local cluster. A release forged with the labels anyone can compute from the add-on's URN, and
 * a revision someone else wrote with our labels copied onto it, are not taken over by Reconcile.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HelmRunner } from "../../../core/helm/index.js";
import {
  INSTANCE_LABEL,
  OWN_REVISION_LABEL,
  OWNER_LABEL,
  OwnershipError,
  ownerIdOf,
} from "../../../core/lifecycle/ownership.js";
import { releaseInputsOf } from "../../../provider/state/encode.js";
import type { ReleaseInputs, ReleaseOutputs } from "../../../provider/state/shape.js";
import { check, create, update } from "../../../provider/steps/index.js";
import { localChart, runHelm } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";

type Inputs = ReleaseInputs & Record<string, unknown>;
const urnOf = (name: string) => `urn:pulumi:prod::platform::helm-handoff:index:ClusterAddon::${name}`;

describe("the owner mark through the provider", { timeout: 600_000 }, () => {
  const suite = clusterSuite({ name: "owner-mark" });

  /** The checked inputs of a Reconcile add-on `name` of the `schema` chart (a new resource: a new owner key). */
  async function inputsOf(name: string, mode: string): Promise<Inputs> {
    const inputs = releaseInputsOf(
      name,
      {
        kubeconfig: suite.cluster.kubeconfig,
        chart: { path: localChart("schema") },
        values: { replicas: 1, mode },
        strategy: "Reconcile",
        install: { timeout: "20s" },
        retry: { deadline: "30s", minBackoff: "10ms", maxBackoff: "50ms" },
      },
      urnOf(name),
    ) as Inputs;
    return (await check({} as Inputs, inputs)).inputs as Inputs;
  }
  const kc = () => ["--kubeconfig", suite.cluster.kubeconfigPath, "--namespace", "default"];
  const status = (name: string) =>
    new HelmRunner({ kubeconfig: suite.cluster.kubeconfig }).status(name, "default");

  test("a release forged with the owner id computed from the URN, any instance, is not taken over", async () => {
    const labels = [
      `${OWNER_LABEL}=${ownerIdOf(urnOf("forged"))}`,
      "helm-handoff.dev/owner-name=platform.prod.forged",
      `${INSTANCE_LABEL}=evil`,
      `${OWN_REVISION_LABEL}=1`,
    ].join(",");
    await runHelm([
      "install",
      "forged",
      localChart("schema"),
      ...kc(),
      "--labels",
      labels,
      "--set",
      "replicas=1,mode=b",
    ]);
    await assert.rejects(create(await inputsOf("forged", "a")), (e: unknown) => {
      assert.ok(e instanceof OwnershipError, String(e));
      assert.match(
        e.message,
        new RegExp(
          `^release default/forged is not this resource's: revision 1 was written by another helm-handoff resource \\(platform\\.prod\\.forged, owner id ${ownerIdOf(urnOf("forged"))}\\)\\. `,
        ),
      );
      return true;
    });
    const live = await status("forged");
    assert.equal(live?.revision, 1, "no upgrade");
    assert.equal(live?.labels[INSTANCE_LABEL], "evil", "no relabel");
  });

  test("a revision someone else wrote with our labels copied onto it is not ours: Reconcile refuses to upgrade it", async () => {
    const inputs = await inputsOf("copied", "a");
    const created = await create(inputs);
    const ours = await status("copied");
    assert.equal(ours?.revision, 1);
    const copied = Object.entries(ours?.labels ?? {})
      .filter(([k]) => k.startsWith("helm-handoff.dev/"))
      .map(([k, v]) => `${k}=${k === OWN_REVISION_LABEL ? "2" : v}`)
      .join(",");
    await runHelm([
      "upgrade",
      "copied",
      localChart("schema"),
      ...kc(),
      "--labels",
      copied,
      "--set",
      "replicas=1,mode=b",
    ]);
    const next = await inputsOf("copied", "a");
    const news = { ...next, ownerKey: inputs.ownerKey } as Inputs;
    await assert.rejects(
      update("copied", created.outs as ReleaseOutputs & Record<string, unknown>, news),
      (e: unknown) => {
        assert.ok(e instanceof OwnershipError, String(e));
        assert.match(
          e.message,
          /^release default\/copied is not this resource's: revision 2 carries this resource's owner label but not its keyed mark \(helm-handoff\.dev\/mark\): someone else wrote or altered it\. /,
        );
        return true;
      },
    );
    assert.equal((await status("copied"))?.revision, 2, "no upgrade");
  });
});
