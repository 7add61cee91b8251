/**
 * The add-on spec shared by the Pulumi and cdk8s front ends, and its validation: the types
 * (its `types` module), `validateSpec`, the chart's checks and the field checks (the `chart` and
 * `fields` modules beside it).
 *
 * @module
 */
export { isVersionConstraint } from "./chart.js";
export { isPlainObject } from "./fields.js";
export * from "./types.js";
export { validateKnownFields, validateReleaseName, validateSpec } from "./validate.js";
