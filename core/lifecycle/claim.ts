/**
 * Reads, for the ownership rule, whether another controller manages a release now
 * (`handoff/claims.ts`), through the runner's kubeconfig: a runner without one (a caller of the
 * core API that lets helm find its own) reads nothing, and the plain marks decide. Loaded on
 * first use with the Kubernetes client, like the relabel.
 *
 * @module
 */
import { ReleaseBusyError } from "../errors.js";
import type { HelmRunner } from "../helm/index.js";

/** Who else manages `namespace/name` (see `controllerClaim`), or `undefined`; errors are redacted. */
export async function claimOn(
  runner: HelmRunner,
  name: string,
  namespace: string,
): Promise<string | undefined> {
  const kubeconfig = runner.kubeconfig;
  if (kubeconfig === undefined) return undefined;
  const [{ kubeClient }, { controllerClaim }] = await Promise.all([
    import("../cluster/client.js"),
    import("../handoff/claims.js"),
  ]);
  const client = await kubeClient(kubeconfig);
  try {
    return await controllerClaim(client, { name, namespace });
  } catch (error) {
    if (error instanceof ReleaseBusyError) {
      throw new ReleaseBusyError(error.release, runner.redact(error.detail));
    }
    throw new Error(runner.redact(error instanceof Error ? error.message : String(error)));
  } finally {
    client.close();
  }
}
