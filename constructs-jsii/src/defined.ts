/**
 * The one helper every construct of this library shares: props without their absent fields, so
 * the TypeScript constructs of `helm-handoff/cdk8s` see a prop that Python or Java left out (None,
 * null) as absent, the way a TypeScript caller leaves it out.
 */

/** `o` without its undefined (or null: Python's None) fields, so the core sees absent props as absent. */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
