/**
 * Typed errors of helm-handoff (helm's stderr is sorted into transient / permanent / state
 * failures beside the runner, in its `classify` module), and which of them the lifecycle retries.
 * Programs tell errors apart by one thing, the `code`
 * (a closed union, {@link ErrorCode}); the subclasses exist for `instanceof` and carry the
 * details of their kind. Only transient helm failures, state conflicts and a busy release are
 * retried (see {@link isRetryableFailure}).
 *
 * @module
 */

/** Every code a {@link HelmHandoffError} can carry; stable across versions. */
export type ErrorCode =
  | "SPEC_INVALID"
  | "HELM_NOT_FOUND"
  | "HELM_VERSION_UNSUPPORTED"
  | "HELM_TRANSIENT"
  | "HELM_PERMANENT"
  | "HELM_STATE"
  | "HELM_CALL_NOT_ALLOWED"
  | "RELEASE_BUSY"
  | "RELEASE_STATE_UNSUPPORTED"
  | "RELEASE_NOT_OURS"
  | "CREDENTIALS_REJECTED"
  | "DEADLINE_EXCEEDED"
  | "WRONG_CLUSTER"
  | "RETIRE_REFUSED";

/** Base class of every error thrown by helm-handoff. `code` is stable and meant for programs. */
export class HelmHandoffError extends Error {
  /** A stable, machine-readable error code, e.g. `"SPEC_INVALID"`. */
  public readonly code: ErrorCode;

  /**
   * @param code - stable error code
   * @param message - human-readable message (must already be redacted)
   * @param options - standard error options (`cause`): lib es2022's `ErrorOptions` spelled out here
   *   and below, so that the declaration files type-check under an older `lib` (`pulumi new typescript`'s es2020)
   */
  public constructor(code: ErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * An add-on spec (or a kubeconfig) is invalid. Thrown before anything touches a cluster.
 * The message names the field path and the fix.
 */
export class SpecError extends HelmHandoffError {
  /** Path of the offending field, e.g. `"chart.version"` or `"install.timeout"`. */
  public readonly field: string;

  /**
   * @param field - path of the offending field
   * @param message - full message, starting with the field path
   */
  public constructor(field: string, message: string, options?: { readonly cause?: unknown }) {
    super("SPEC_INVALID", message, options);
    this.field = field;
  }
}

/** What a user does about a missing or old helm. */
const INSTALL_HELM =
  "install helm v4 (https://helm.sh/docs/intro/install/) and put it on PATH, or set HELM_HANDOFF_HELM to its path";

/** helm could not be found or started. */
export class HelmNotFoundError extends HelmHandoffError {
  /** Binaries and locations that were tried, in order. */
  public readonly searched: readonly string[];

  /**
   * @param searched - binaries and locations that were tried, in order
   */
  public constructor(searched: readonly string[], options?: { readonly cause?: unknown }) {
    super(
      "HELM_NOT_FOUND",
      `helm was not found (looked for ${searched.join(", ")}). helm-handoff needs helm v4: ${INSTALL_HELM} (or pass the helmBinary option).`,
      options,
    );
    this.searched = searched;
  }
}

/** The helm found is not v4. */
export class HelmVersionError extends HelmHandoffError {
  /** The version helm reported, e.g. `"v3.16.2"`. */
  public readonly found: string;

  /**
   * @param binary - the helm binary that was run
   * @param found - the version it reported
   */
  public constructor(binary: string, found: string, options?: { readonly cause?: unknown }) {
    super(
      "HELM_VERSION_UNSUPPORTED",
      `helm ${found} found at ${binary}, but helm-handoff needs helm v4 (v4.0.0 or later): ${INSTALL_HELM}.`,
      options,
    );
    this.found = found;
  }
}

/**
 * How a helm failure should be handled:
 * - `transient`: the cluster or the repository is not ready yet; retry with backoff.
 * - `permanent`: retrying cannot help (bad values, bad chart, bad credentials); fail at once.
 * - `state`: the release is in a state that needs a decision (exists, locked, never deployed).
 */
export type HelmFailureKind = "transient" | "permanent" | "state";

/** The result of `classifyHelmFailure` (the helm runner's stderr table). */
export interface HelmFailureClass {
  /** How to handle the failure. */
  readonly kind: HelmFailureKind;
  /** A short reason, e.g. `"API server unreachable"`. */
  readonly reason: string;
}

/** Everything {@link HelmError} records about a failed helm run (all of it already redacted). */
export interface HelmErrorDetails {
  /** The classification of stderr. */
  readonly kind: HelmFailureKind;
  /** Short reason from the classification. */
  readonly reason: string;
  /** The argv that was run, binary first, secrets redacted. */
  readonly command: readonly string[];
  /** helm's exit code, when it exited (undefined when killed or timed out). */
  readonly exitCode: number | undefined;
  /** helm's stderr, secrets redacted. */
  readonly stderr: string;
  /** Whether the attempt was killed by its timeout. @default false */
  readonly timedOut?: boolean;
  /** Whether the attempt was cancelled through the runner's signal. @default false */
  readonly canceled?: boolean;
}

/** helm exited with an error. Tell it apart by `code` (its `kind` is the same fact), never by the message. */
export class HelmError extends HelmHandoffError {
  /** How the failure should be handled. */
  public readonly kind: HelmFailureKind;
  /** Short reason from the classification. */
  public readonly reason: string;
  /** The argv that was run, binary first, secrets redacted. */
  public readonly command: readonly string[];
  /** helm's exit code, when it exited. */
  public readonly exitCode: number | undefined;
  /** helm's stderr, secrets redacted. */
  public readonly stderr: string;
  /** Whether the attempt was killed by its timeout. */
  public readonly timedOut: boolean;
  /** Whether the attempt was cancelled. */
  public readonly canceled: boolean;

  /**
   * @param details - the redacted details of the run
   * @param options - `cause`: the spawn's own error, if any
   */
  public constructor(details: HelmErrorDetails, options?: { readonly cause?: unknown }) {
    super(HELM_CODES[details.kind], formatHelmMessage(details), options);
    this.kind = details.kind;
    this.reason = details.reason;
    this.command = details.command;
    this.exitCode = details.exitCode;
    this.stderr = details.stderr;
    this.timedOut = details.timedOut ?? false;
    this.canceled = details.canceled ?? false;
  }
}

const HELM_CODES = {
  transient: "HELM_TRANSIENT",
  permanent: "HELM_PERMANENT",
  state: "HELM_STATE",
} as const satisfies Record<HelmFailureKind, ErrorCode>;

/** A helm failure worth retrying (see `HelmFailureKind`). */
export class TransientHelmError extends HelmError {}
/** A helm failure that retrying cannot fix. */
export class PermanentHelmError extends HelmError {}
/** A helm failure caused by the release's state (exists, locked, never deployed). */
export class ReleaseStateError extends HelmError {}

/** Builds the {@link HelmError} subclass that matches `details.kind`. */
export function makeHelmError(details: HelmErrorDetails, options?: { readonly cause?: unknown }): HelmError {
  switch (details.kind) {
    case "transient":
      return new TransientHelmError(details, options);
    case "state":
      return new ReleaseStateError(details, options);
    default:
      return new PermanentHelmError(details, options);
  }
}

function formatHelmMessage(d: HelmErrorDetails): string {
  const sub = d.command.slice(1).find((a) => !a.startsWith("-")) ?? "";
  const how = d.canceled
    ? "was cancelled"
    : d.timedOut
      ? "timed out"
      : d.exitCode === undefined
        ? "was killed"
        : `exited with code ${d.exitCode}`;
  const err = d.stderr.trim();
  return (
    `helm ${sub} ${how} (${d.kind}: ${d.reason})` +
    (err ? `: ${err}` : "") +
    `\n  command: ${d.command.map(quoteArg).join(" ")}` +
    `\n  next step: ${d.canceled ? CANCELED_NEXT_STEP : HELM_NEXT_STEPS[d.kind]}`
  );
}

/** The last line of a {@link HelmError}'s message, by kind: what the user does next. */
export const HELM_NEXT_STEPS: Readonly<Record<HelmFailureKind, string>> = {
  transient:
    "helm-handoff retries this until retry.deadline; if it keeps failing, fix what helm reports, then run the same operation again",
  permanent:
    "fix what helm reports (the chart, its version or values, the cluster's API or credentials), then run the same operation again: retrying it as it is cannot succeed",
  state:
    "run the same operation again: helm-handoff recovers a release it left stuck; one someone else left stuck needs `helm history` and a fix by hand first",
};

/** The next step of a {@link HelmError} whose attempt was cancelled. */
const CANCELED_NEXT_STEP = "the operation was cancelled; run it again when it should go on";

function quoteArg(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a);
}

/** One attempt of a retried operation, as listed by {@link DeadlineExceededError}. */
export interface AttemptRecord {
  /** 1-based attempt number. */
  readonly attempt: number;
  /** When the attempt started (ISO 8601). */
  readonly startedAt: string;
  /** The message of the error it failed with (redacted). */
  readonly error: string;
}

/**
 * A retried operation ran out of time. The message lists every attempt and the last cause, and ends
 * with the next step.
 */
export class DeadlineExceededError extends HelmHandoffError {
  /** Every attempt made, oldest first. */
  public readonly attempts: readonly AttemptRecord[];
  /** The error of the last attempt, if any attempt ran. */
  public readonly lastCause: unknown;

  /**
   * @param what - what was being attempted, e.g. `"install of release \"cni\""`
   * @param deadline - the overall deadline, in human form (e.g. `"15m"`)
   * @param attempts - every attempt made
   * @param lastCause - the error of the last attempt
   */
  public constructor(what: string, deadline: string, attempts: readonly AttemptRecord[], lastCause: unknown) {
    // Long waits probe hundreds of times: list the first 3 and the last 5 (all are in `attempts`).
    const line = (a: AttemptRecord): string => `  #${a.attempt} at ${a.startedAt}: ${firstLine(a.error)}`;
    const lines =
      attempts.length <= 10
        ? attempts.map(line)
        : [
            ...attempts.slice(0, 3).map(line),
            `  … ${attempts.length - 8} more attempt(s) …`,
            ...attempts.slice(-5).map(line),
          ];
    // The last cause's own next step (a helm error's) gives way to the deadline's.
    const last = (
      lastCause instanceof Error ? lastCause.message : lastCause === undefined ? "none" : String(lastCause)
    )
      .split("\n")
      .filter((l) => !l.startsWith("  next step: "))
      .join("\n");
    super(
      "DEADLINE_EXCEEDED",
      `${what} did not succeed within the deadline of ${deadline} after ${attempts.length} attempt(s):\n` +
        (lines.length > 0 ? `${lines.join("\n")}\n` : "") +
        `last cause: ${last}\n` +
        `next step: ${DEADLINE_NEXT_STEP}`,
      { cause: lastCause },
    );
    this.attempts = attempts;
    this.lastCause = lastCause;
  }
}

/** The last line of every {@link DeadlineExceededError}'s message. */
export const DEADLINE_NEXT_STEP =
  "fix what the last cause names (or raise retry.deadline if the cluster is only slow to answer), then run the same operation again: it starts from what the cluster holds now";

function firstLine(s: string): string {
  const line = s.split("\n", 1)[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/**
 * The release is being changed by another operation: helm reports it `pending-install`,
 * `pending-upgrade`, `pending-rollback` or `uninstalling` since less than one attempt timeout, or
 * it kept changing state while being recovered. Retried with backoff: the other operation
 * finishes, or the state goes stale and is recovered.
 */
export class ReleaseBusyError extends HelmHandoffError {
  /** `namespace/name` of the release. */
  public readonly release: string;
  /** What makes it busy, e.g. `release is pending-upgrade since …`. */
  public readonly detail: string;

  /**
   * @param release - `namespace/name` of the release
   * @param detail - what makes it busy, e.g. `release is pending-upgrade since …`
   */
  public constructor(release: string, detail: string, options?: { readonly cause?: unknown }) {
    super("RELEASE_BUSY", `${release}: ${detail}`, options);
    this.release = release;
    this.detail = detail;
  }
}

/**
 * A helm command that the strategy table does not allow at this
 * step was about to run, e.g. an upgrade of an ApplyOnce release after handoff. A bug guard: it
 * is thrown before helm starts.
 */
export class HelmCallNotAllowedError extends HelmHandoffError {
  /**
   * @param call - the runner method, e.g. `"upgrade"`
   * @param context - the strategy and step, e.g. `"ApplyOnce update"`
   */
  public constructor(call: string, context: string) {
    super(
      "HELM_CALL_NOT_ALLOWED",
      `helm ${call} is not allowed at ${context} (see the strategy table in core/lifecycle/strategy.ts); no helm process was started`,
    );
  }
}

/** The API server rejected the kubeconfig's credentials (401/403). Not retried. */
export class CredentialsRejectedError extends HelmHandoffError {
  /** The HTTP status returned. */
  public readonly statusCode: number;

  /**
   * @param server - the API server URL
   * @param statusCode - 401 or 403
   */
  public constructor(server: string, statusCode: number, options?: { readonly cause?: unknown }) {
    super(
      "CREDENTIALS_REJECTED",
      `the API server ${server} rejected the kubeconfig's credentials (HTTP ${statusCode} on /readyz): ` +
        "check the user's token or client certificate in the kubeconfig",
      options,
    );
    this.statusCode = statusCode;
  }
}

/**
 * Whether the lifecycle retries `error`: transient helm failures, release-state conflicts and a
 * busy release (all re-evaluated at the next attempt). Anything else fails at once.
 */
export function isRetryableFailure(error: unknown): boolean {
  if (error instanceof ReleaseBusyError) return true;
  return (
    error instanceof HelmError && !error.canceled && (error.kind === "transient" || error.kind === "state")
  );
}
