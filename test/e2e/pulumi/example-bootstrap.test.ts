/**
 * The bootstrap example is a real Pulumi project: `cd examples/bootstrap && pulumi up` with only
 * the documented config (the kubeconfig) installs both add-ons, a values change through config is
 * ignored, and `pulumi destroy` leaves both releases deployed at revision 1. Runs in the checkout's
 * example directory with the repository's node_modules, on a stack of its own that it removes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { liveRelease } from "../../support/addon.js";
import { clusterSuite } from "../../support/cluster.js";
import { type PulumiCli, pulumiCli } from "../../support/project.js";
import { repoRoot } from "../../support/repo-root.js";

const suite = clusterSuite({ name: "cli-examples", workloads: true });
let cli: PulumiCli | undefined;

after(async () => {
  await cli?.run(["stack", "rm", "--yes", "--force"]).catch(() => undefined);
  await cli?.dispose();
});

test("cd examples/bootstrap && pulumi up installs both add-ons with only the kubeconfig configured", {
  timeout: 900_000,
}, async () => {
  cli = await pulumiCli(join(repoRoot(), "examples", "bootstrap"));
  await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: suite.cluster.kubeconfigPath });
  const up = await cli.run(["up", "--yes", "--skip-preview"]);
  assert.doesNotMatch(up.all, /warning: using .* from \$PATH/);
  const outputs = JSON.parse((await cli.run(["stack", "output", "--json", "--show-secrets"])).stdout);
  assert.deepEqual(Object.keys(outputs).sort(), ["cniHandoff", "cniStatus", "gitopsHandoff", "gitopsStatus"]);
  assert.equal(outputs.cniHandoff.release.namespace, "kube-system");
  for (const [name, ns] of [
    ["cni", "kube-system"],
    ["gitops", "gitops-system"],
  ] as const) {
    const release = await liveRelease(suite.cluster, name, ns);
    assert.equal(release?.status, "deployed");
    assert.equal(release?.revision, 1);
  }

  await cli.run(["config", "set", "cniIpamMode", "cluster-pool"]);
  await cli.run(["up", "--yes", "--skip-preview"]);
  assert.deepEqual((await liveRelease(suite.cluster, "cni", "kube-system"))?.values, {
    ipam: { mode: "kubernetes" },
  });

  await cli.run(["destroy", "--yes", "--skip-preview"]);
  for (const [name, ns] of [
    ["cni", "kube-system"],
    ["gitops", "gitops-system"],
  ] as const) {
    assert.equal((await liveRelease(suite.cluster, name, ns))?.revision, 1);
  }
});
