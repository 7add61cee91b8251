/**
 * The local-cluster fixtures of the integration tests. `clusterSuite` is a suite's cluster (a real
 * etcd + kube-apiserver on loopback, see `helm-handoff/local-cluster`), optionally with a helm spy
 * (test/support/helm-spy.ts) its stacks run helm through: it registers the suite's `before` hook that
 * starts both at once and waits until the cluster is ready, and its `after` hook that releases every
 * stack or project the tests kept, then stops the cluster and removes the spy, so that no suite
 * copies that scaffolding. `withLocalCluster` is one test's extra cluster: started, handed to the
 * test's function and stopped afterwards, also when the function throws, so that no failing test
 * leaves daemons behind.
 *
 * @module
 */
import { after, before } from "node:test";
import { type LocalCluster, type LocalClusterOptions, startLocalCluster } from "../../local-cluster/index.js";
import { createHelmSpy, type HelmSpy } from "./helm-spy.js";

/**
 * What a suite releases after its tests: a stack or a CLI (`dispose`), a project or a temp dir
 * (`remove`), a server (`close`).
 */
export type Releasable =
  | { dispose(): Promise<unknown> }
  | { remove(): Promise<unknown> }
  | { close(): Promise<unknown> };

/** Options of {@link clusterSuite}: the cluster's, and whether the suite counts helm. */
export interface ClusterSuiteOptions extends LocalClusterOptions {
  /** Also make a helm spy ({@link ClusterSuite.spy}). */
  readonly helmSpy?: boolean;
}

/** A suite's cluster and helm spy, readable from the suite's tests and later hooks. */
export interface ClusterSuite {
  /** The ready cluster. */
  readonly cluster: LocalCluster;
  /** The helm spy (with `helmSpy: true`): give `spy.binary` as `HELM_HANDOFF_HELM`. */
  readonly spy: HelmSpy;
  /** Releases `resource` after the suite's tests, before the cluster stops; returns it. */
  keep<T extends Releasable>(resource: T): T;
}

/**
 * Registers, in the suite being defined, the hooks that start a local cluster (and a helm spy) before
 * its tests and release everything after them.
 */
export function clusterSuite(options: ClusterSuiteOptions): ClusterSuite {
  const { helmSpy, ...clusterOptions } = options;
  let cluster: LocalCluster | undefined;
  let spy: HelmSpy | undefined;
  const kept: Releasable[] = [];
  before(async () => {
    const [started, made] = await Promise.allSettled([
      startLocalCluster(clusterOptions),
      helmSpy ? createHelmSpy() : Promise.resolve(undefined),
    ]);
    if (started.status === "fulfilled") cluster = started.value;
    if (made.status === "fulfilled") spy = made.value;
    if (started.status === "rejected") throw started.reason;
    if (made.status === "rejected") throw made.reason;
    await cluster?.ready;
  });
  after(async () => {
    await Promise.allSettled(kept.map(release));
    await Promise.allSettled([cluster?.stop(), spy?.remove()]);
  });
  return {
    get cluster(): LocalCluster {
      if (cluster === undefined) throw new Error(`the suite's cluster "${options.name}" has not started`);
      return cluster;
    },
    get spy(): HelmSpy {
      if (spy === undefined) throw new Error(`the suite of cluster "${options.name}" has no helm spy`);
      return spy;
    },
    keep<T extends Releasable>(resource: T): T {
      kept.push(resource);
      return resource;
    },
  };
}

function release(resource: Releasable): Promise<unknown> {
  if ("dispose" in resource) return resource.dispose();
  if ("remove" in resource) return resource.remove();
  return resource.close();
}

/**
 * Runs `fn` with a new local cluster, then stops it (every process, the temp dir).
 *
 * @param options - as for `startLocalCluster`; the cluster is not awaited `ready` (an
 * `apiServerDelay` test wants it late): await `cluster.ready` in `fn` when needed.
 */
export async function withLocalCluster<T>(
  options: LocalClusterOptions,
  fn: (cluster: LocalCluster) => Promise<T>,
): Promise<T> {
  const cluster = await startLocalCluster(options);
  try {
    return await fn(cluster);
  } finally {
    await cluster.stop();
  }
}
