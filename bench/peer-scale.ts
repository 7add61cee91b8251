/**
 * What each add-on costs a steady `pulumi up`, against the peer, side by side in one run
 * (`npm run bench -- peer-scale [rounds]`, default 3; `BENCH_SCALE_NS=10,30` picks the sizes,
 * default 10, 30 and 100). On one local cluster with a kwok node, two paths each run our
 * `ClusterAddon` (ApplyOnce) twice, as a new user gets it (the package's provider from the plugin
 * cache, no set-up) and on Pulumi's dynamic provider host (`HELM_HANDOFF_PULUMI_PROVIDER=dynamic`),
 * and the peer `kubernetes.helm.v3.Release` with `ignoreChanges: ["values"]` and
 * `retainOnDelete` (the peer's install-once), all of the workload chart:
 * - cli: JavaScript projects that install the `npm pack` tarball, run by the `pulumi` CLI;
 * - automation: Automation API inline programs in this process (`test/support/pulumi.ts`).
 * For each path, after one untimed create per subject, it measures the create overhead (up with one
 * add-on − empty up, ours / peer; target ≤ 0.5), then gives each side one stack per size N with N
 * add-ons installed (untimed) and times `rounds` rounds of no-op ups, every stack once a round,
 * sizes and sides interleaved (the size order reversed every other round, so that a drift of the
 * machine's load over the run weighs on every size alike), the values changed before every up
 * (every subject ignores the change). It prints the medians and ratios per N, the marginal cost of
 * an add-on (slope of the least-squares line of median time against N) of each side and their
 * ratio, each no-op up against the same side's empty up, the floor (our empty up against the peer's
 * no-op up: the ratio an add-on costing nothing would reach), the fixed part (intercept) of each, and the
 * launch-to-serving time of Pulumi's dynamic provider host and of the package's provider, one of
 * which a Node.js program's add-ons pay once per up. Not a test: nothing here asserts.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { pulumiNodejsPluginDir } from "../local-cluster/control-plane/binaries.js";
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

/** Ours as a new user gets it (the package's provider from the plugin cache), ours on Pulumi's dynamic provider host, the peer. */
type Side = "default" | "dynamic" | "peer";

/** Release name prefix letter and label of each side. */
const SIDES: Record<Side, { readonly letter: string; readonly label: string }> = {
  default: { letter: "o", label: "ClusterAddon (default route)" },
  dynamic: { letter: "d", label: "ClusterAddon (dynamic provider host)" },
  peer: { letter: "p", label: "helm.v3.Release" },
};

/** One side of one path: something that can be pointed at N add-ons with a values mode, and upped. */
interface Subject {
  readonly side: Side;
  /** The number of add-ons this subject's stack holds while no-op ups are timed. */
  readonly size: number;
  readonly prefix: string;
  readonly namespace: string;
  /** Points the program at `count` add-ons with values `mode`. */
  program(count: number, mode: string): Promise<void>;
  up(): Promise<unknown>;
  destroy(): Promise<unknown>;
  dispose(): Promise<void>;
}

/** A JavaScript project run by the CLI. */
async function cliSubject(
  side: Side,
  cluster: LocalCluster,
  namespace: string,
  size: number,
): Promise<Subject> {
  const prefix = `c${SIDES[side].letter}${size}x`;
  const deps: Record<string, string> = { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") };
  if (side === "peer") deps["@pulumi/kubernetes"] = installedVersion("@pulumi/kubernetes");
  const project: Project = await createProject({
    name: `scale-${side}-${size}`,
    packageJson: { main: "index.js" },
    dependencies: deps,
    files: {
      "index.js": side === "peer" ? jsPeer(namespace) : jsOurs(namespace),
      "Pulumi.yaml": `name: scale-${side}-${size}\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n`,
    },
  });
  await cp(chartPath("workload"), join(project.dir, "charts", "workload"), { recursive: true });
  const cli: PulumiCli = await pulumiCli(
    project.dir,
    side === "dynamic" ? { HELM_HANDOFF_PULUMI_PROVIDER: "dynamic" } : {},
  );
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
    size,
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
async function automationSubject(
  side: Side,
  cluster: LocalCluster,
  namespace: string,
  size: number,
): Promise<Subject> {
  const prefix = `a${SIDES[side].letter}${size}x`;
  const shape: InlineShape = { count: 0, chartPath: chartPath("workload"), mode: "a" };
  const stack: TestStack = await testStack({
    projectName: `scale-${side}-${size}`,
    program: inlineProgram(side === "peer" ? "peer" : "ours", cluster.kubeconfig, namespace, prefix, shape),
    route: side === "dynamic" ? "dynamic" : "default",
  });
  return {
    side,
    size,
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
 * Launch to serving of a provider plugin: the time until it prints its port. Pulumi's dynamic
 * provider host (`pulumi-resource-pulumi-nodejs`) runs a Node.js program's `ClusterAddon`s by
 * default, the package's `pulumi-resource-helm-handoff` with the package's provider; either starts
 * once per up.
 */
async function pluginStart(executable: string): Promise<number> {
  return timed(
    () =>
      new Promise<void>((resolve, reject) => {
        // Its own process group: the executable is a script that starts node, and both must go.
        const child = spawn(executable, ["127.0.0.1:1"], {
          cwd: repoRoot(),
          stdio: ["ignore", "pipe", "ignore"],
          detached: true,
        });
        child.once("error", reject);
        child.stdout.once("data", () => {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGINT");
          resolve();
        });
      }),
  );
}

const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/**
 * Measures one path and prints its lines, each of ours against the peer. `subjects` holds one
 * subject per side and size; the create overhead is measured on each side's first.
 */
async function measurePath(path: string, subjects: readonly Subject[], cluster: LocalCluster): Promise<void> {
  const t = new Map<string, number[]>();
  const add = (k: string, ms: number) => t.set(k, [...(t.get(k) ?? []), ms]);
  const m = (k: string) => median(t.get(k) ?? []);
  const label = (side: Side) =>
    `${path} (${side === "default" ? "default route" : "dynamic host"})`.padEnd(34);
  const first = subjects.filter((s) => s.size === SIZES[0]);
  const ours = first.filter((s) => s.side !== "peer");
  // One untimed create and clear per subject first: the first run of a path pays one-off costs
  // (compile caches, helm's discovery cache) that no steady run does.
  for (const s of first) {
    await s.program(1, "a");
    await s.up();
    await clear(s, cluster, 1);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of first) {
      await s.program(0, "a");
      add(`${s.side}/empty`, await timed(() => s.up()));
      await s.program(1, "a");
      add(`${s.side}/one`, await timed(() => s.up()));
      await clear(s, cluster, 1);
    }
  }
  const overhead = (side: Side) => m(`${side}/one`) - m(`${side}/empty`);
  for (const s of ours) {
    console.log(
      `${label(s.side)} create overhead: ours ${sec(overhead(s.side))}, peer ${sec(overhead("peer"))}, ratio ${(overhead(s.side) / overhead("peer")).toFixed(2)} (target <= 0.5)`,
    );
  }
  for (const s of subjects) {
    await s.program(s.size, "a");
    await s.up();
  }
  for (let round = 0; round < ROUNDS; round++) {
    const mode = round % 2 === 0 ? "b" : "a";
    const sizes = round % 2 === 0 ? SIZES : [...SIZES].reverse();
    for (const n of sizes) {
      for (const s of subjects.filter((x) => x.size === n)) {
        await s.program(n, mode);
        add(`${s.side}/${n}`, await timed(() => s.up()));
      }
    }
  }
  for (const n of SIZES) {
    const peer = m(`peer/${n}`);
    for (const s of ours) {
      const value = m(`${s.side}/${n}`);
      console.log(
        `${label(s.side)} N=${String(n).padEnd(4)} ClusterAddon ${sec(value).padStart(8)}  helm.v3.Release ${sec(peer).padStart(8)}  ratio ${(value / peer).toFixed(2)}  / its empty up ${(value / m(`${s.side}/empty`)).toFixed(2)} (peer ${(peer / m("peer/empty")).toFixed(2)})`,
      );
    }
    // An up of add-ons cannot take less than the same program's up without them.
    console.log(
      `${`${path} (floor)`.padEnd(34)} N=${String(n).padEnd(4)} ours with no add-on ${sec(m("default/empty"))} / helm.v3.Release ${sec(peer)}: ratio ${(m("default/empty") / peer).toFixed(2)} (what an add-on costing nothing would reach)`,
    );
  }
  const lineOf = (side: Side) => line(SIZES.map((n) => [n, m(`${side}/${n}`)] as const));
  const lp = lineOf("peer");
  for (const s of ours) {
    const lo = lineOf(s.side);
    console.log(
      `${label(s.side)} slope per add-on: ours ${(lo.slope / 1000).toFixed(3)} s, peer ${(lp.slope / 1000).toFixed(3)} s, ratio ${(lo.slope / lp.slope).toFixed(2)} (target <= 1.0)`,
    );
    console.log(
      `${label(s.side)} fixed part (intercept): ours ${sec(lo.intercept)}, peer ${sec(lp.intercept)}, ours − peer ${sec(lo.intercept - lp.intercept)}`,
    );
  }
  for (const s of subjects) await clear(s, cluster, s.size);
}

async function main(): Promise<void> {
  const cluster = await startLocalCluster({ name: "bench-scale", workloads: true });
  const made: Subject[] = [];
  try {
    await cluster.ready;
    for (const [what, executable] of [
      ["Pulumi's dynamic provider host", join(pulumiNodejsPluginDir(), "pulumi-resource-pulumi-nodejs")],
      ["the package's provider", join(repoRoot(), "pulumi-resource-helm-handoff")],
    ] as const) {
      const starts: number[] = [];
      for (let i = 0; i < ROUNDS + 1; i++) starts.push(await pluginStart(executable));
      // The first start fills the compile cache; the medians are of the later ones.
      console.log(`${what}, launch to serving: ${sec(median(starts.slice(1)))} (median of ${ROUNDS})`);
    }
    console.log(
      `no-op up of N add-ons, median of ${ROUNDS} (values changed before each up, ignored by both)`,
    );
    for (const [path, make] of [
      ["cli", cliSubject],
      ["automation", automationSubject],
    ] as const) {
      const namespace = `scale-${path}`;
      const subjects: Subject[] = [];
      for (const n of SIZES) {
        for (const side of Object.keys(SIDES) as Side[]) {
          const made1 = await make(side, cluster, namespace, n);
          made.push(made1);
          subjects.push(made1);
        }
      }
      await measurePath(path, subjects, cluster);
    }
  } finally {
    for (const s of made) await s.dispose();
    await cluster.stop();
  }
}

await main();
