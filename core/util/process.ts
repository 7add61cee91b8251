/**
 * The one "is this process still alive" check, used wherever a pid recorded earlier is looked at
 * again: temp-dir sweeps of the helm runner, stack locks and local-cluster guards.
 *
 * @module
 */

/** Whether a process with this pid exists (signal 0; a process of another user counts as alive). */
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
