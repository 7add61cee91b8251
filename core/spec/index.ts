/**
 * The add-on spec shared by the Pulumi and cdk8s front ends, and its validation: the types
 * (`spec/types.ts`), `validateSpec` (`spec/validate.ts`), the chart's checks (`spec/chart.ts`)
 * and the field checks (`spec/fields.ts`).
 *
 * @module
 */
export { isVersionConstraint } from "./chart.js";
export { isPlainObject } from "./fields.js";
export * from "./types.js";
export { validateKnownFields, validateReleaseName, validateSpec } from "./validate.js";
