/**
 * `npm run demo`: the main job in one command, on the real Pulumi engine.
 *
 * 1. Without `--kubeconfig FILE`, starts a local cluster (etcd, kube-apiserver,
 *    controller-manager, scheduler, a kwok node) as the embedded default.
 * 2. `pulumi up` of the Pulumi project in examples/bootstrap (a CNI and a GitOps controller,
 *    ApplyOnce) through the CLI and its Node.js language host, exactly as `cd examples/bootstrap &&
 *    pulumi up` runs it, with a local file:// backend; prints the stack exports.
 * 3. Changes the CNI's values (`pulumi config set cniIpamMode`) and runs `up` again: nothing changes.
 * 4. `pulumi destroy`: both releases are still running afterwards.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import * as automation from "@pulumi/pulumi/automation/index.js";
import { HelmRunner } from "helm-handoff";
import { type LocalCluster, startLocalCluster } from "helm-handoff/local-cluster";

const repoRoot = resolve(dirname(new URL(import.meta.url).pathname), "..", "..", "..");
const projectDir = join(repoRoot, "examples", "bootstrap");

function step(text: string): void {
  process.stdout.write(`\n=== ${text}\n`);
}

async function main(): Promise<void> {
  const { values: flags } = parseArgs({ options: { kubeconfig: { type: "string" } } });
  let cluster: LocalCluster | undefined;
  let kubeconfig: string;
  if (flags.kubeconfig) {
    kubeconfig = await readFile(flags.kubeconfig, "utf8");
    step(`target: the cluster of ${flags.kubeconfig}`);
  } else {
    step("no --kubeconfig given: starting a local cluster (etcd + kube-apiserver + kwok node)");
    cluster = await startLocalCluster({ name: "demo", workloads: true });
    await cluster.ready;
    kubeconfig = cluster.kubeconfig;
    process.stdout.write(`local cluster at ${cluster.server}, kubeconfig ${cluster.kubeconfigPath}\n`);
  }
  const backendDir = await mkdtemp(join(tmpdir(), "helm-handoff-demo-state-"));
  const pulumiHome = await mkdtemp(join(tmpdir(), "helm-handoff-demo-home-"));
  try {
    // A local program: the CLI runs examples/bootstrap/index.ts with its language host.
    const stack = await automation.LocalWorkspace.createOrSelectStack(
      { stackName: "demo", workDir: projectDir },
      {
        // The `pulumi` on PATH: scripts/demo.sh puts the toolchain's first.
        pulumiCommand: await automation.PulumiCommand.get(),
        envVars: {
          PULUMI_BACKEND_URL: `file://${backendDir}`,
          PULUMI_HOME: pulumiHome,
          PULUMI_CONFIG_PASSPHRASE: "helm-handoff-demo",
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        },
      },
    );
    await stack.setConfig("kubeconfig", { value: kubeconfig, secret: true });
    const onOutput = (s: string): void => void process.stdout.write(s);

    step("pulumi up: install the CNI and the GitOps controller (ApplyOnce)");
    const first = await stack.up({ onOutput, color: "never" });
    step("stack exports (the handoff records feed the GitOps bootstrap)");
    for (const [k, v] of Object.entries(first.outputs)) {
      process.stdout.write(`${k}: ${JSON.stringify(v.value, null, 2)}\n`);
    }

    const ipamMode = "cluster-pool";
    await stack.setConfig("cniIpamMode", { value: ipamMode });
    step(
      `change the CNI's ipam.mode to "${ipamMode}" (pulumi config set cniIpamMode) and run pulumi up again`,
    );
    const second = await stack.up({ onOutput, color: "never" });
    const changes = second.summary.resourceChanges ?? {};
    process.stdout.write(`resource changes of the second up: ${JSON.stringify(changes)}\n`);

    step("pulumi destroy: the stack goes, the releases stay");
    await stack.destroy({ onOutput, color: "never" });
    const helm = new HelmRunner({ kubeconfig });
    for (const [name, ns] of [
      ["cni", "kube-system"],
      ["gitops", "gitops-system"],
    ] as const) {
      const r = await helm.status(name, ns);
      process.stdout.write(
        `release ${ns}/${name}: ${r ? `${r.status}, revision ${r.revision}, chart ${r.chart}-${r.chartVersion}` : "not found"}\n`,
      );
    }
    await stack.workspace.removeStack("demo");
  } finally {
    await rm(join(projectDir, "Pulumi.demo.yaml"), { force: true });
    await rm(backendDir, { recursive: true, force: true });
    await rm(pulumiHome, { recursive: true, force: true });
    await cluster?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
