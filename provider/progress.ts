/**
 * Progress lines of the dynamic provider. Plain stderr lines are what the
 * Pulumi engine passes through to `pulumi up`'s output from a dynamic provider
 * (structured `pulumi.log` does not flow from there). Lines are already
 * redacted by the helm runner; nothing else secret is ever printed.
 *
 * @module
 */

/** Writes one progress line for a release: `[helm-handoff] NAME: MESSAGE`. */
export function progressLine(releaseName: string, message: string): void {
  process.stderr.write(`[helm-handoff] ${releaseName}: ${message}\n`);
}
