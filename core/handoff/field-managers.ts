/**
 * Who else writes an object, from its `metadata.managedFields`: the field managers that are not
 * helm and own fields by server-side apply, or are GitOps controllers. Pure.
 *
 * @module
 */

/** Field managers of GitOps controllers, whichever operation they write with. */
const GITOPS_MANAGERS = new Set([
  "argocd-controller",
  "argocd-application-controller",
  "helm-controller",
  "kustomize-controller",
]);

/**
 * The field managers of an object that are not helm (helm v4 applies server-side as `helm`):
 * every manager that owns fields by server-side apply, and a GitOps controller's update.
 * Status writes (a subresource) and other updates (controllers adding an annotation) are not claims.
 */
export function otherFieldManagers(managed: readonly ManagedFields[] | undefined): string[] {
  const found = new Set<string>();
  for (const m of managed ?? []) {
    if (m.subresource !== undefined && m.subresource !== "") continue;
    const manager = m.manager ?? "";
    if (manager === "helm") continue;
    if (m.operation === "Apply" || GITOPS_MANAGERS.has(manager)) found.add(manager);
  }
  return [...found].sort();
}

/** One entry of `metadata.managedFields`. */
export interface ManagedFields {
  readonly manager?: string;
  readonly operation?: string;
  readonly subresource?: string;
}
