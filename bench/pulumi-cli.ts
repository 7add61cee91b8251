/**
 * The CLI path against the inline path it replaces, measured side by side in one run
 * (`npm run bench -- pulumi-cli [rounds]`): `pulumi up` of the bootstrap example as a Pulumi
 * project (the CLI starts the Node.js language host, which compiles examples/bootstrap/index.ts
 * with ts-node) vs the same program function as an inline Automation API program, alternated,
 * on one local cluster with a kwok node. Both releases are uninstalled (untimed) after every up,
 * so each up is a first install. Prints the medians and their ratio (target <= 1.1). Not a test:
 * nothing here asserts.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as automation from "@pulumi/pulumi/automation/index.js";
import { bootstrap } from "../examples/bootstrap/program.js";
import { toolchainBinDir } from "../local-cluster/control-plane/binaries.js";
import { type LocalCluster, startLocalCluster } from "../local-cluster/index.js";
import { runHelm } from "../test/support/charts.js";
import { pulumiEnv, testStack } from "../test/support/pulumi.js";
import { repoRoot } from "../test/support/repo-root.js";
import { median, timed } from "./stats.js";

const ROUNDS = Number(process.argv[2] ?? process.env.BENCH_ROUNDS ?? 3);
const projectDir = join(repoRoot(), "examples", "bootstrap");

async function uninstallBoth(cluster: LocalCluster): Promise<void> {
  for (const [name, ns] of [
    ["cni", "kube-system"],
    ["gitops", "gitops-system"],
  ] as const) {
    await runHelm(["uninstall", name, "--namespace", ns, "--kubeconfig", cluster.kubeconfigPath, "--wait"]);
  }
}

/** One `up` of examples/bootstrap through the CLI (a local program), on a new stack. */
async function cliUp(cluster: LocalCluster, round: number): Promise<number> {
  const backendDir = await mkdtemp(join(tmpdir(), "hh-bench-cli-backend-"));
  const home = await mkdtemp(join(tmpdir(), "hh-bench-cli-home-"));
  const stackName = `bench-cli-${round}`;
  try {
    const stack = await automation.LocalWorkspace.createOrSelectStack(
      { stackName, workDir: projectDir },
      {
        pulumiCommand: await automation.PulumiCommand.get({ root: dirname(toolchainBinDir()) }),
        envVars: pulumiEnv(backendDir, home),
      },
    );
    await stack.setConfig("kubeconfig", { value: cluster.kubeconfig, secret: true });
    const ms = await timed(() => stack.up());
    await stack.workspace.removeStack(stackName, { force: true });
    return ms;
  } finally {
    await rm(join(projectDir, `Pulumi.${stackName}.yaml`), { force: true });
    await rm(backendDir, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}

/** One `up` of the same program function as an inline program, on a new stack. */
async function inlineUp(cluster: LocalCluster): Promise<number> {
  const s = await testStack({
    program: async () => ({
      ...bootstrap({
        kubeconfig: cluster.kubeconfig,
        chartsDir: join(projectDir, "charts/"),
        ipamMode: "kubernetes",
      }),
    }),
  });
  try {
    return await timed(() => s.up());
  } finally {
    await s.dispose();
  }
}

async function main(): Promise<void> {
  const cluster = await startLocalCluster({ name: "bench-cli", workloads: true });
  await cluster.ready;
  const cli: number[] = [];
  const inline: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      cli.push(await cliUp(cluster, i));
      await uninstallBoth(cluster);
      inline.push(await inlineUp(cluster));
      await uninstallBoth(cluster);
    }
  } finally {
    await cluster.stop();
  }
  const fmt = (ms: number): string => (ms / 1000).toFixed(2);
  process.stdout.write(
    [
      `rounds: ${ROUNDS} (alternated, medians)`,
      `pulumi up of examples/bootstrap through the CLI: ${fmt(median(cli))} s (${cli.map(fmt).join(", ")})`,
      `the same program inline (Automation API): ${fmt(median(inline))} s (${inline.map(fmt).join(", ")})`,
      `ratio CLI / inline: ${(median(cli) / median(inline)).toFixed(2)} (target <= 1.1)`,
      "",
    ].join("\n"),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
