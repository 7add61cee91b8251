/**
 * Flux beside a local cluster: the real source-controller and helm-controller (built by the
 * toolchain from their Go modules) as host processes in the `flux-system` namespace, watching every
 * namespace, with their CRDs installed first. source-controller serves the chart artifacts it
 * fetches on a loopback port, where helm-controller downloads them, as in a real cluster.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { findBinary } from "../control-plane/binaries.js";
import { freePort } from "../control-plane/ports.js";
import {
  createObjects,
  filesBeside,
  type GitopsControllers,
  type GitopsHost,
  installCrds,
  namespace,
  waitHttp,
} from "./host.js";

/** The namespace the Flux controllers run in (their `RUNTIME_NAMESPACE`). */
export const FLUX_NAMESPACE = "flux-system";

/** Starts source-controller and helm-controller and waits until both report ready. */
export async function startFlux(host: GitopsHost): Promise<GitopsControllers> {
  const source = findBinary("source-controller");
  const helm = findBinary("helm-controller");
  await installCrds(host, [
    ...filesBeside(source, "source-controller-crds"),
    ...filesBeside(helm, "helm-controller-crds"),
  ]);
  await createObjects(host, [namespace(FLUX_NAMESPACE)]);
  const env = {
    ...process.env,
    KUBECONFIG: host.kubeconfigPath,
    RUNTIME_NAMESPACE: FLUX_NAMESPACE,
    HOME: host.dir,
  };
  const common = (health: number) => [
    "--watch-all-namespaces",
    "--enable-leader-election=false",
    "--metrics-addr=0",
    `--health-addr=127.0.0.1:${health}`,
    "--log-encoding=console",
  ];
  const storage = join(host.dir, "flux-artifacts");
  mkdirSync(storage, { mode: 0o700 });
  const [storagePort, sourceHealth, helmHealth] = [await freePort(), await freePort(), await freePort()];
  const daemon = (name: string, command: string, args: string[]) =>
    host.start({ name, command, args, env, cwd: host.dir, logFile: join(host.logDir, `${name}.log`) });
  await daemon("source-controller", source, [
    ...common(sourceHealth),
    `--storage-path=${storage}`,
    `--storage-addr=127.0.0.1:${storagePort}`,
    `--storage-adv-addr=127.0.0.1:${storagePort}`,
  ]);
  await daemon("helm-controller", helm, common(helmHealth));
  await Promise.all([
    waitHttp(host, "source-controller", `http://127.0.0.1:${sourceHealth}/readyz`),
    waitHttp(host, "helm-controller", `http://127.0.0.1:${helmHealth}/readyz`),
  ]);
  return { kind: "flux", namespace: FLUX_NAMESPACE };
}
