/**
 * `ClusterAddon` against its peer `kubernetes.helm.v3.Release`, through the `pulumi` CLI and both
 * hosts, side by side in one run (`npm run bench -- peer-cli [rounds]`, default 3). Six projects
 * in temp dirs install the `npm pack` tarball: a JavaScript program with `ClusterAddon` (as a new
 * user gets it: the package's provider from the plugin cache) and one with `helm.v3.Release`; a Pulumi YAML program with
 * `helm-handoff:ClusterAddon` (the package's provider) and one with
 * `kubernetes:helm.sh/v3:Release`; a Python program with the package's generated SDK and one with
 * `pulumi_kubernetes` (each in its virtualenv, pinned by test/fixtures/python-constraints.txt).
 * The peer's provider is the toolchain's `pulumi-resource-kubernetes`. On one local cluster with a kwok node, each project measures:
 * - empty up: `pulumi up` of the program with no add-on;
 * - create overhead: (up with one add-on of the workload chart − empty up) / plain
 *   `helm install --wait` of the same chart, measured in the same round;
 * - no-op up of 10: ten add-ons installed, then `pulumi up` again. For `ClusterAddon` (ApplyOnce)
 *   the values change before each up (the handed-off releases are left alone); the peer's values
 *   stay the same (a change would upgrade ten releases).
 * Four variants run beside the defaults: our JavaScript project with
 * `HELM_HANDOFF_PULUMI_PROVIDER=dynamic`, so that its add-ons run on Pulumi's dynamic provider
 * host (against the same peer project); both Node.js projects, as their own pair
 * of projects, with `NODE_COMPILE_CACHE` set in the CLI's environment (Node's on-disk compile
 * cache, which a user can turn on for every Node.js process Pulumi starts; our add-ons turn it on
 * in their own processes anyway, so this pair is the like-for-like one), and our project on the
 * dynamic provider host under it too (against that peer); and our YAML project declaring the
 * package under `plugins.providers` with its version, which lets Pulumi cache the schema (one
 * plugin start per `up` instead of two; the peer's schema is cached already, its plugin being
 * installed with a version).
 * Prints the medians and, per host, ours / peer (targets: create overhead ≤ 0.5, no-op up of 10
 * ≤ 1.0). Not a test: nothing here asserts.
 */
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalCluster, startLocalCluster } from "../local-cluster/index.js";
import { packageVersion } from "../provider/plugin/provider.js";
import { chartPath, runHelm } from "../test/support/charts.js";
import { installedPackageSchema } from "../test/support/package-program.js";
import {
  createProject,
  installedVersion,
  type Project,
  type PulumiCli,
  pulumiCli,
  versionedPluginYaml,
} from "../test/support/project.js";
import {
  installPythonRequirements,
  PYTHON_REQUIREMENTS,
  pythonEnv,
  pythonProjectYaml,
} from "../test/support/python-program.js";
import { jsOurs, jsPeer, pyOurs, pyPeer, chartValues as values } from "./programs.js";
import { median, timed } from "./stats.js";

const ROUNDS = Number(process.argv[2] ?? process.env.BENCH_ROUNDS ?? 3);
const NAMESPACE = "bench";
const MANY = 10;

type Host = "nodejs" | "yaml" | "python";
type Side = "ours" | "peer";

interface Subject {
  readonly host: Host;
  readonly side: Side;
  /** Release name prefix, distinct per subject. */
  readonly prefix: string;
  /** The variant it belongs to (see the header), `""` for the defaults. */
  readonly variant: Variant;
  project?: Project;
  cli?: PulumiCli;
}

type Variant = "" | "compile-cache" | "schema-cached" | "dynamic-host" | "dynamic-host-compile-cache";

/** Environment of the CLI for a variant: `NODE_COMPILE_CACHE` reaches every Node.js process Pulumi starts. */
function variantEnv(variant: Variant, cacheDir: string): Record<string, string> {
  return {
    ...(variant.endsWith("compile-cache") ? { NODE_COMPILE_CACHE: cacheDir } : {}),
    ...(variant.startsWith("dynamic-host") ? { HELM_HANDOFF_PULUMI_PROVIDER: "dynamic" } : {}),
  };
}

/** How our YAML project names the package: `packages:`, or also `plugins.providers` with the version (schema cached). */
function yamlPackage(variant: Variant): string {
  const pkg = "packages:\n  helm-handoff: ./node_modules/helm-handoff\n";
  return variant === "schema-cached" ? `${pkg}${versionedPluginYaml(packageVersion())}` : pkg;
}

/** A YAML program with `count` add-ons (YAML has no loops: the file is written per scenario). */
function yamlProgram(s: Subject, count: number, chart: string, mode: string): string {
  const { side, prefix } = s;
  const head = `name: bench-yaml-${side}\nruntime: yaml\n${side === "ours" ? yamlPackage(s.variant) : ""}config:\n  kubeconfig:\n    type: string\nresources:\n`;
  const provider =
    side === "peer"
      ? `  k8s:\n    type: pulumi:providers:kubernetes\n    properties:\n      kubeconfig: \${kubeconfig}\n`
      : "";
  const vals = Object.entries(values(chart, mode))
    .map(([k, v]) => `        ${k}: ${JSON.stringify(v)}\n`)
    .join("");
  let body = "";
  for (let i = 0; i < count; i++) {
    body +=
      side === "ours"
        ? `  a${i}:\n    type: helm-handoff:ClusterAddon\n    properties:\n      kubeconfig: \${kubeconfig}\n      chart:\n        path: ./charts/${chart}\n      releaseName: ${prefix}${i}\n      namespace: ${NAMESPACE}\n      createNamespace: true\n      values:\n${vals}`
        : `  a${i}:\n    type: kubernetes:helm.sh/v3:Release\n    properties:\n      chart: ./charts/${chart}\n      name: ${prefix}${i}\n      namespace: ${NAMESPACE}\n      createNamespace: true\n      values:\n${vals}    options:\n      provider: \${k8s}\n`;
  }
  const resources = provider + body;
  return head.replace("resources:\n", resources === "" ? "resources: {}\n" : `resources:\n${resources}`);
}

/** The files of a subject's project. */
function projectFiles(s: Subject): Record<string, string> {
  if (s.host === "nodejs") {
    return {
      "index.js": s.side === "ours" ? jsOurs(NAMESPACE) : jsPeer(NAMESPACE),
      "Pulumi.yaml": `name: bench-js-${s.side}\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n`,
    };
  }
  if (s.host === "python") {
    return s.side === "ours"
      ? {
          "Pulumi.yaml": pythonProjectYaml("bench-python-ours"),
          "requirements.txt": PYTHON_REQUIREMENTS,
          "__main__.py": pyOurs(NAMESPACE),
        }
      : {
          "Pulumi.yaml":
            "name: bench-python-peer\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
          "requirements.txt": "pulumi>=3.0.0,<4.0.0\npulumi-kubernetes\n",
          "__main__.py": pyPeer(NAMESPACE),
        };
  }
  return { "Pulumi.yaml": yamlProgram(s, 0, "workload", "a") };
}

async function setUp(s: Subject, cluster: LocalCluster, compileCache: string): Promise<void> {
  const deps: Record<string, string> = { "@pulumi/pulumi": installedVersion("@pulumi/pulumi") };
  if (s.side === "peer" && s.host === "nodejs")
    deps["@pulumi/kubernetes"] = installedVersion("@pulumi/kubernetes");
  const files = projectFiles(s);
  s.project = await createProject({
    name: `bench-${s.host}-${s.side}`,
    packageJson: s.host === "nodejs" ? { main: "index.js" } : {},
    dependencies: deps,
    files,
  });
  for (const chart of ["workload", "schema"]) {
    await cp(chartPath(chart), join(s.project.dir, "charts", chart), { recursive: true });
  }
  const dir = s.project.dir;
  if (s.host === "python") {
    await installPythonRequirements(dir, s.side === "ours" ? await installedPackageSchema(dir) : undefined);
  }
  const python = s.host === "python" ? pythonEnv(dir) : {};
  s.cli = await pulumiCli(dir, { ...variantEnv(s.variant, compileCache), ...python });
  await s.cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: cluster.kubeconfigPath });
  await s.cli.run(["config", "set", "prefix", s.prefix]);
}

/** Points the subject's program at `count` add-ons of `chart` with `mode`. */
async function program(s: Subject, count: number, chart: string, mode: string): Promise<void> {
  const cli = s.cli as PulumiCli;
  if (s.host === "yaml") {
    await writeFile(join((s.project as Project).dir, "Pulumi.yaml"), yamlProgram(s, count, chart, mode));
    return;
  }
  await cli.run(["config", "set", "count", String(count)]);
  await cli.run(["config", "set", "chart", chart]);
  await cli.run(["config", "set", "mode", mode]);
}

async function up(s: Subject): Promise<number> {
  const cli = s.cli as PulumiCli;
  return timed(() => cli.run(["up", "--yes", "--skip-preview"]));
}

/** Destroys the stack's resources and uninstalls what ApplyOnce left (untimed). */
async function clear(s: Subject, cluster: LocalCluster, count: number): Promise<void> {
  await (s.cli as PulumiCli).run(["destroy", "--yes", "--skip-preview"]);
  for (let i = 0; i < count; i++) {
    await runHelm([
      "uninstall",
      `${s.prefix}${i}`,
      "-n",
      NAMESPACE,
      "--kubeconfig",
      cluster.kubeconfigPath,
      "--wait",
      "--ignore-not-found",
    ]);
  }
}

async function helmInstall(cluster: LocalCluster, round: number): Promise<number> {
  const name = `plain${round}`;
  const kc = ["-n", NAMESPACE, "--kubeconfig", cluster.kubeconfigPath];
  const ms = await timed(() =>
    runHelm([
      "install",
      name,
      chartPath("workload"),
      ...kc,
      "--create-namespace",
      "--wait",
      "--set",
      "message=a",
    ]),
  );
  await runHelm(["uninstall", name, ...kc, "--wait"]);
  return ms;
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A line of the report: our subject against the peer's, in one host. */
interface Pair {
  readonly label: string;
  readonly ours: Subject;
  readonly peer: Subject;
}

async function main(): Promise<void> {
  const cluster = await startLocalCluster({ name: "bench-peer", workloads: true });
  const compileCache = await mkdtemp(join(tmpdir(), "hh-bench-compile-cache-"));
  const subject = (host: Host, side: Side, prefix: string, variant: Variant = ""): Subject => ({
    host,
    side,
    prefix,
    variant,
  });
  const js = { ours: subject("nodejs", "ours", "jo"), peer: subject("nodejs", "peer", "jp") };
  const jsCache = {
    ours: subject("nodejs", "ours", "co", "compile-cache"),
    peer: subject("nodejs", "peer", "cp", "compile-cache"),
  };
  const yaml = { ours: subject("yaml", "ours", "yo"), peer: subject("yaml", "peer", "yp") };
  const yamlCached = subject("yaml", "ours", "so", "schema-cached");
  const jsDynamic = subject("nodejs", "ours", "ko", "dynamic-host");
  const jsDynamicCache = subject("nodejs", "ours", "kc", "dynamic-host-compile-cache");
  const python = { ours: subject("python", "ours", "po"), peer: subject("python", "peer", "pp") };
  const pairs: Pair[] = [
    { label: "Node.js host (the default route: the package's provider from the plugin cache)", ...js },
    {
      label: "Node.js host, Pulumi's dynamic provider host (HELM_HANDOFF_PULUMI_PROVIDER=dynamic)",
      ours: jsDynamic,
      peer: js.peer,
    },
    { label: "Node.js host, NODE_COMPILE_CACHE set", ...jsCache },
    {
      label: "Node.js host, dynamic provider host, NODE_COMPILE_CACHE set",
      ours: jsDynamicCache,
      peer: jsCache.peer,
    },
    { label: "YAML host (packages:)", ...yaml },
    { label: "YAML host, schema cached (plugins.providers with version)", ours: yamlCached, peer: yaml.peer },
    { label: "Python host (packages:)", ...python },
  ];
  const subjects = [
    js.ours,
    js.peer,
    jsDynamic,
    jsCache.ours,
    jsCache.peer,
    jsDynamicCache,
    yaml.ours,
    yaml.peer,
    yamlCached,
    python.ours,
    python.peer,
  ];
  const key = (s: Subject) => `${s.host}/${s.variant}/${s.side}`;
  try {
    await cluster.ready;
    for (const s of subjects) await setUp(s, cluster, compileCache);
    const t = new Map<string, number[]>();
    const add = (k: string, ms: number) => t.set(k, [...(t.get(k) ?? []), ms]);
    const plain: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      plain.push(await helmInstall(cluster, round));
      for (const s of subjects) {
        await program(s, 0, "workload", "a");
        add(`${key(s)}/empty`, await up(s));
        await program(s, 1, "workload", "a");
        add(`${key(s)}/one`, await up(s));
        await clear(s, cluster, 1);
      }
    }
    // The no-op rounds go round the subjects (as the create rounds do), so that a slower minute of
    // the machine weighs on every subject alike.
    for (const s of subjects) {
      await program(s, MANY, "schema", "a");
      await up(s);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of subjects) {
        if (s.side === "ours") await program(s, MANY, "schema", round % 2 === 0 ? "b" : "a");
        add(`${key(s)}/noop`, await up(s));
      }
    }
    for (const s of subjects) await clear(s, cluster, MANY);
    const m = (k: string) => median(t.get(k) ?? []);
    const helm = median(plain);
    console.log(`helm install --wait (workload chart): ${fmt(helm)} (median of ${ROUNDS})`);
    for (const { label, ours, peer } of pairs) {
      const overhead = (s: Subject) => (m(`${key(s)}/one`) - m(`${key(s)}/empty`)) / helm;
      console.log(`\n${label}`);
      for (const s of [ours, peer]) {
        const what = s.side === "ours" ? "ClusterAddon" : "helm.v3.Release";
        console.log(
          `  ${what.padEnd(16)} empty up ${fmt(m(`${key(s)}/empty`))}, up with one ${fmt(m(`${key(s)}/one`))}, create overhead ${overhead(s).toFixed(2)}, no-op up of ${MANY} ${fmt(m(`${key(s)}/noop`))}`,
        );
      }
      console.log(
        `  create overhead ours/peer: ${(overhead(ours) / overhead(peer)).toFixed(2)} (target <= 0.5)`,
      );
      console.log(
        `  no-op up of ${MANY} ours/peer: ${(m(`${key(ours)}/noop`) / m(`${key(peer)}/noop`)).toFixed(2)}, ours / its empty up ${(m(`${key(ours)}/noop`) / m(`${key(ours)}/empty`)).toFixed(2)}`,
      );
    }
  } finally {
    for (const s of subjects) {
      await s.cli?.dispose();
      await s.project?.remove();
    }
    await rm(compileCache, { recursive: true, force: true });
    await cluster.stop();
  }
}

await main();
