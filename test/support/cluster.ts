/**
 * The local-cluster fixture of the integration tests: `withLocalCluster` starts a cluster (a real
 * etcd + kube-apiserver on loopback, see `helm-handoff/local-cluster`), hands it to the test's
 * function and stops it afterwards, also when the function throws, so that no test copies the
 * start / try / finally / stop sequence and no failing test leaves daemons behind.
 *
 * @module
 */
import { type LocalCluster, type LocalClusterOptions, startLocalCluster } from "../../local-cluster/index.js";

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
