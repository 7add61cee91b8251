/**
 * Whether another controller manages a release now, whatever Helm's storage says: Argo CD never
 * writes a Helm revision (it applies `helm template` output over the live objects), so a release
 * it took over still carries helm-handoff's marks. {@link controllerClaim} reads the cluster: a
 * Flux HelmRelease or an Argo CD Application that names the release (also when Helm's storage is
 * gone, e.g. after `helm-handoff retire-helm-storage`), and each object of the latest revision's
 * manifest tracked by an Argo CD Application (`argocd.argoproj.io/tracking-id`) or written by
 * another field manager (`field-managers.ts`). The ownership rule (`lifecycle/ownership.ts`) takes
 * its answer as a fact: a claimed release is not ours to write. Reads only.
 *
 * @module
 */
import type { KubeClient } from "../cluster/client.js";
import { ReleaseBusyError } from "../errors.js";
import { Discovery, readArgo, readFlux, readObjects, readStorage } from "./observe.js";

/** A release of `namespace/name` as the claim reader needs it. */
export interface ReleaseRef {
  readonly name: string;
  readonly namespace: string;
}

/**
 * Who else manages the release `namespace/name`, in words (`Argo CD Application argocd/cni tracks
 * its ConfigMap kube-system/cni-config`), or `undefined` when nobody does. Helm's storage is read
 * in the release's namespace (where helm-handoff writes it).
 * @throws ReleaseBusyError (retried) when the cluster is busy, failing or unreachable; Error when
 * it refuses the read: a write never goes ahead on a guess
 */
export async function controllerClaim(client: KubeClient, ref: ReleaseRef): Promise<string | undefined> {
  const record = { release: { ...ref, storageNamespace: ref.namespace } };
  const discovery = new Discovery(client);
  const where = `${ref.namespace}/${ref.name}`;
  try {
    const [flux, argo, stored] = await Promise.all([
      readFlux(client, record),
      readArgo(client, record),
      readStorage(client, record, discovery),
    ]);
    const [hr] = flux;
    if (hr !== undefined) return `Flux HelmRelease ${hr.namespace}/${hr.name} names it`;
    const [app] = argo;
    if (app !== undefined) return `Argo CD Application ${app.namespace}/${app.name} names it`;
    for (const o of await readObjects(client, stored?.objects ?? [], discovery)) {
      const what = `${o.ref.kind} ${o.ref.namespace === "" ? "" : `${o.ref.namespace}/`}${o.ref.name}`;
      if (o.trackedBy !== undefined) return `Argo CD Application ${o.trackedBy} tracks its ${what}`;
      const [manager] = o.managers ?? [];
      if (manager !== undefined) return `field manager ${manager} writes its ${what}`;
    }
    return undefined;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const status = (error as { status?: unknown }).status;
    // The cluster refused the read (401, 403, 404 of a path, …): permanent. Busy (429), failing
    // (5xx) or unreachable: the write waits and looks again.
    if (typeof status === "number" && status >= 400 && status < 500 && status !== 429) {
      throw new Error(
        `helm-handoff cannot tell whether another controller manages release ${where} (${why}): the kubeconfig's user needs to read its Secrets and objects, and to list Flux HelmReleases and Argo CD Applications where those exist`,
      );
    }
    throw new ReleaseBusyError(
      where,
      `cannot read yet whether another controller manages it (${why}); looking again`,
    );
  }
}
