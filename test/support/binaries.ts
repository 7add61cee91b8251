/**
 * Suites that need binaries from the toolchain: outside CI, a suite whose binaries are not built
 * yet is skipped with a line saying which one, so a developer can run the rest first; under CI
 * (`CI` set) it never skips, so a missing binary fails the run instead of passing it quietly.
 */
import { findBinary } from "../../local-cluster/control-plane/binaries.js";

/** The first of `names` that the local cluster's binary lookup cannot find, if any. */
export function missingBinary(names: readonly string[]): string | undefined {
  return names.find((name) => {
    try {
      findBinary(name);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * The `skip` option of a suite that needs `names`: the reason while one is missing outside CI,
 * `false` under CI or when all are there.
 */
export function skipUnlessBuilt(names: readonly string[]): string | false {
  const missing = missingBinary(names);
  return missing !== undefined && !process.env.CI ? `${missing} is not built yet` : false;
}
