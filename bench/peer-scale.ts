/**
 * What each add-on costs a steady `pulumi up`, against the peer, side by side in one run
 * (`npm run bench -- peer-scale [rounds]`, default 3; `BENCH_SCALE_NS=10,30` picks the sizes,
 * default 10, 30 and 100). On one local cluster with a kwok node, two paths each run our
 * `ClusterAddon` (ApplyOnce) and the peer `kubernetes.helm.v3.Release` with
 * `ignoreChanges: ["values"]` and `retainOnDelete` (the peer's install-once), both of the workload
 * chart:
 * - cli: JavaScript projects that install the `npm pack` tarball, run by the `pulumi` CLI;
 * - automation: Automation API inline programs in this process (`test/support/pulumi.ts`).
 * For each path, after one untimed create per side, it measures the create overhead (up with one
 * add-on − empty up, ours / peer; target ≤ 0.5), then, for each size N, installs N add-ons (untimed) and times `rounds` no-op
 * ups of each side, alternated, the values changed before every up (both sides ignore the
 * change). It prints the medians and ratios per N, the marginal cost of an add-on (slope of the
 * least-squares line of median time against N) of each side and their ratio (targets: ≤ 1.0 for
 * the slope and for N = 30), the fixed part (intercept) of each, and the launch-to-serving time
 * of Pulumi's dynamic provider host, which a Node.js program's add-ons pay once per up. Not a
 * test: nothing here asserts.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { pulumiNodejsPluginDir } from "../local-cluster/binaries.js";
import { type LocalCluster, startLocalCluster } from "../local-cluster/index.js";
import { chartPath, runHelm } from "../test/support/charts.js";
import {
  createProject,
  installedVersion,
  type Project,
  type PulumiCli,
  pulumiCli,
} from "../test/support/project.js";
import { type TestStack, testStack } from "../test/support/pulumi.js";
import { repoRoot } from "../test/support/repo-root.js";
import { type InlineShape, inlineProgram, jsOurs, jsPeer } from "./programs.js";
import { median, timed } from "./stats.js";

const ROUNDS = Number(process.argv[2] ?? process.env.BENCH_ROUNDS ?? 3);
const SIZES = (process.env.BENCH_SCALE_NS ?? "10,30,100").split(",").map(Number);

type Side = "ours" | "peer";

/** One side of one path: something that can be pointed at N add-ons with a values mode, and upped. */
interface Subject {
  readonly side: Side;
  readonly prefix: string;
  readonly namespace: string;
  /** Points the program at `count` add-ons with values `mode`. */
  program(count: number, mode: string): Promise<void>;
  up(): Promise<unknown>;
  destroy(): Promise<unknown>;
  dispose(): Promise<void>;
}

/** A JavaScript project run by the CLI. */
async function cliSubject(side: Side, cluster: LocalCluster, namespace: string): Promise<Subject> {
  const prefix = `c${side[0]}`;
  const deps: Record<string, string> = { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") };
  if (side === "peer") deps["@pulumi/kubernetes"] = installedVersion("@pulumi/kubernetes");
  const project: Project = await createProject({
    name: `scale-${side}`,
    packageJson: { main: "index.js" },
    dependencies: deps,
    files: {
      "index.js": side === "ours" ? jsOurs(namespace) : jsPeer(namespace),
      "Pulumi.yaml": `name: scale-${side}\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n`,
    },
  });
  await cp(chartPath("workload"), join(project.dir, "charts", "workload"), { recursive: true });
  const cli: PulumiCli = await pulumiCli(project.dir);
  await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: cluster.kubeconfigPath });
  for (const [k, v] of [
    ["prefix", prefix],
    ["chart", "workload"],
    ["retain", "true"],
  ] as const) {
    await cli.run(["config", "set", k, v]);
  }
  return {
    side,
    prefix,
    namespace,
    program: async (count, mode) => {
      await cli.run(["config", "set", "count", String(count)]);
      await cli.run(["config", "set", "mode", mode]);
    },
    up: () => cli.run(["up", "--yes", "--skip-preview"]),
    destroy: () => cli.run(["destroy", "--yes", "--skip-preview"]),
    dispose: async () => {
      await cli.dispose();
      await project.remove();
    },
  };
}

/** An inline program run by the Automation API in this process. */
async function automationSubject(side: Side, cluster: LocalCluster, namespace: string): Promise<Subject> {
  const prefix = `a${side[0]}`;
  const shape: InlineShape = { count: 0, chartPath: chartPath("workload"), mode: "a" };
  const stack: TestStack = await testStack({
    projectName: `scale-${side}`,
    program: inlineProgram(side, cluster.kubeconfig, namespace, prefix, shape),
  });
  return {
    side,
    prefix,
    namespace,
    program: async (count, mode) => {
      shape.count = count;
      shape.mode = mode;
    },
    up: () => stack.up(),
    destroy: () => stack.destroy(),
    dispose: () => stack.dispose(),
  };
}

/** Destroys the subject's stack and uninstalls the `count` releases its install-once left (untimed). */
async function clear(s: Subject, cluster: LocalCluster, count: number): Promise<void> {
  await s.program(0, "a");
  await s.destroy();
  const names = Array.from({ length: count }, (_, i) => `${s.prefix}${i}`);
  for (let i = 0; i < names.length; i += 8) {
    await Promise.all(
      names
        .slice(i, i + 8)
        .map((name) =>
          runHelm([
            "uninstall",
            name,
            "-n",
            s.namespace,
            "--kubeconfig",
            cluster.kubeconfigPath,
            "--ignore-not-found",
          ]),
        ),
    );
  }
}

/** Slope and intercept of the least-squares line through the points (x, y). */
function line(points: ReadonlyArray<readonly [number, number]>): { slope: number; intercept: number } {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const slope = sxx === 0 ? Number.NaN : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/**
 * Launch to serving of Pulumi's dynamic provider host (`pulumi-resource-pulumi-nodejs`, which runs
 * a Node.js program's `ClusterAddon`s): the time until it prints its port. Pulumi's own, once per up.
 */
async function dynamicHostStart(): Promise<number> {
  const host = join(pulumiNodejsPluginDir(), "pulumi-resource-pulumi-nodejs");
  return timed(
    () =>
      new Promise<void>((resolve, reject) => {
        // Its own process group: the host is a script that starts node, and both must go.
        const child = spawn(host, ["127.0.0.1:1"], {
          cwd: repoRoot(),
          stdio: ["ignore", "pipe", "ignore"],
          detached: true,
        });
        child.once("error", reject);
        child.stdout.once("data", () => {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          resolve();
        });
      }),
  );
}

const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Measures one path (both sides) and prints its lines. */
async function measurePath(
  path: string,
  subjects: { readonly ours: Subject; readonly peer: Subject },
  cluster: LocalCluster,
): Promise<void> {
  const both = [subjects.ours, subjects.peer];
  const t = new Map<string, number[]>();
  const add = (k: string, ms: number) => t.set(k, [...(t.get(k) ?? []), ms]);
  const m = (k: string) => median(t.get(k) ?? []);
  // One untimed create and clear per side first: the first run of a path pays one-off costs
  // (compile caches, helm's discovery cache) that no steady run does.
  for (const s of both) {
    await s.program(1, "a");
    await s.up();
    await clear(s, cluster, 1);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of both) {
      await s.program(0, "a");
      add(`${s.side}/empty`, await timed(() => s.up()));
      await s.program(1, "a");
      add(`${s.side}/one`, await timed(() => s.up()));
      await clear(s, cluster, 1);
    }
  }
  const overhead = (side: Side) => m(`${side}/one`) - m(`${side}/empty`);
  console.log(
    `${path.padEnd(10)} create overhead: ours ${sec(overhead("ours"))}, peer ${sec(overhead("peer"))}, ratio ${(overhead("ours") / overhead("peer")).toFixed(2)} (target <= 0.5)`,
  );
  let mode = 0;
  for (const n of SIZES) {
    for (const s of both) {
      await s.program(n, "a");
      await s.up();
    }
    for (let round = 0; round < ROUNDS; round++) {
      mode++;
      for (const s of both) {
        await s.program(n, mode % 2 === 0 ? "a" : "b");
        add(`${s.side}/${n}`, await timed(() => s.up()));
      }
    }
    const [ours, peer] = [m(`ours/${n}`), m(`peer/${n}`)];
    console.log(
      `${path.padEnd(10)} N=${String(n).padEnd(4)} ClusterAddon ${sec(ours).padStart(8)}  helm.v3.Release ${sec(peer).padStart(8)}  ratio ${(ours / peer).toFixed(2)}`,
    );
  }
  const lineOf = (side: Side) => line(SIZES.map((n) => [n, m(`${side}/${n}`)] as const));
  const [lo, lp] = [lineOf("ours"), lineOf("peer")];
  console.log(
    `${path.padEnd(10)} slope per add-on: ours ${(lo.slope / 1000).toFixed(3)} s, peer ${(lp.slope / 1000).toFixed(3)} s, ratio ${(lo.slope / lp.slope).toFixed(2)} (target <= 1.0)`,
  );
  console.log(
    `${path.padEnd(10)} fixed part (intercept): ours ${sec(lo.intercept)}, peer ${sec(lp.intercept)}, ours − peer ${sec(lo.intercept - lp.intercept)}`,
  );
  for (const s of both) await clear(s, cluster, Math.max(...SIZES));
}

async function main(): Promise<void> {
  const cluster = await startLocalCluster({ name: "bench-scale", workloads: true });
  const made: Subject[] = [];
  try {
    await cluster.ready;
    const starts: number[] = [];
    for (let i = 0; i < ROUNDS; i++) starts.push(await dynamicHostStart());
    console.log(
      `Pulumi's dynamic provider host (runs a Node.js program's ClusterAddons), launch to serving: ${sec(median(starts))} (median of ${ROUNDS})`,
    );
    console.log(
      `no-op up of N add-ons, median of ${ROUNDS} (values changed before each up, ignored by both)`,
    );
    for (const [path, make] of [
      ["cli", cliSubject],
      ["automation", automationSubject],
    ] as const) {
      const namespace = `scale-${path}`;
      const ours = await make("ours", cluster, namespace);
      made.push(ours);
      const peer = await make("peer", cluster, namespace);
      made.push(peer);
      await measurePath(path, { ours, peer }, cluster);
    }
  } finally {
    for (const s of made) await s.dispose();
    await cluster.stop();
  }
}

await main();
