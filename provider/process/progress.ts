/**
 * Progress lines of both hosts. Plain stderr lines are what the Pulumi engine passes through to
 * `pulumi up`'s output from the dynamic provider (structured `pulumi.log` does not flow from
 * there); the package's provider sends them through the engine's `Log` call instead
 * ({@link setProgressSink}). Lines are already redacted by the helm runner; nothing else secret is
 * ever printed.
 *
 * @module
 */

let sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`);

/** Writes one progress line for a release: `[helm-handoff] NAME: MESSAGE`. */
export function progressLine(releaseName: string, message: string): void {
  sink(`[helm-handoff] ${releaseName}: ${message}`);
}

/** Sends every progress line from now on to `next` (the package's provider: the engine's `Log`). */
export function setProgressSink(next: (line: string) => void): void {
  sink = next;
}
