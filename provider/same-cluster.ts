/**
 * Whether a Reconcile delete would uninstall a release that its replacement just took over on the
 * same cluster. A change of cluster identity (`clusterId`: the API server moved from an IP to a DNS
 * name, the CA was rotated) makes the engine replace the resource: create the new one (which
 * adopts the release it finds), then delete the old one. The create records the `kube-system`
 * namespace UID behind the new kubeconfig here ({@link recordRelease}); the delete reads the UID
 * behind the old kubeconfig and asks {@link uninstallVerdict} before any uninstall. The record is
 * this provider process's (the engine runs a replacement's create and the old resource's delete in
 * one `pulumi up`); a resource created before UIDs were recorded has none and keeps the old rule
 * (uninstall).
 *
 * @module
 */

const taken = new Set<string>();

function key(uid: string, namespace: string, releaseName: string): string {
  return `${uid}/${namespace}/${releaseName}`;
}

/** Notes that a create in this process installed or adopted `namespace/releaseName` on the cluster whose kube-system UID is `uid`. */
export function recordRelease(uid: string | undefined, namespace: string, releaseName: string): void {
  if (uid !== undefined) taken.add(key(uid, namespace, releaseName));
}

/** What a Reconcile delete does with the release. */
export type UninstallVerdict =
  | { readonly uninstall: true }
  | { readonly uninstall: false; readonly reason: string };

/**
 * Decides the delete of `namespace/releaseName`, recorded with kube-system UID `recordedUid`
 * (`undefined` for a resource created before UIDs were recorded), whose kubeconfig now reaches a
 * cluster with UID `liveUid` (`undefined` when it could not be read).
 */
export function uninstallVerdict(
  recordedUid: string | undefined,
  liveUid: string | undefined,
  namespace: string,
  releaseName: string,
): UninstallVerdict {
  if (recordedUid === undefined || liveUid === undefined) return { uninstall: true };
  if (liveUid !== recordedUid) {
    return {
      uninstall: false,
      reason: `the kubeconfig now reaches another cluster (kube-system UID ${liveUid}, recorded ${recordedUid}); the release is not uninstalled there`,
    };
  }
  if (taken.has(key(liveUid, namespace, releaseName))) {
    return {
      uninstall: false,
      reason: `its replacement manages release ${namespace}/${releaseName} on the same cluster (kube-system UID ${liveUid}); not uninstalling it`,
    };
  }
  return { uninstall: true };
}
