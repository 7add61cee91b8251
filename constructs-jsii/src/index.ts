/**
 * helm-handoff's cdk8s constructs as a jsii construct library: the same `ClusterAddon`,
 * `FluxHandoff` and `ArgoCdHandoff` for Python, Java, Go and .NET cdk8s apps.
 *
 * Every construct here delegates to the TypeScript construct of `helm-handoff/cdk8s` (bundled in
 * this package): one implementation of rendering, the render cache, chunking and validation. The
 * files here only turn the jsii-shaped props (structs, enums, `ChartSource` factories, `Duration`)
 * into the TypeScript props; the TypeScript construct is the default child (`Default`) of each one.
 * One file per construct: `chart-source.ts`, `cluster-addon.ts`, `cluster-value.ts`, `handoff.ts`.
 */
export * from "./chart-source.js";
export * from "./cluster-addon.js";
export { ClusterValue } from "./cluster-value.js";
export * from "./handoff.js";
