/**
 * What the release lifecycle reports while it works and when it is done: the phases and progress
 * events of `ensureRelease` and `removeRelease`, and the action `ensureRelease` took. Types only,
 * shared by the lifecycle's steps and the front ends that print them.
 *
 * @module
 */
/** Phases reported by `ensureRelease` and `removeRelease`. */
export type InstallPhase =
  | "waiting-for-api-server"
  | "installing"
  | "upgrading"
  | "adopting"
  | "recovering"
  | "retrying"
  | "uninstalling"
  | "done";

/** A progress report. */
export interface ProgressEvent {
  /** The phase. */
  readonly phase: InstallPhase;
  /** The attempt number (1-based; 0 while waiting for the API server). */
  readonly attempt: number;
  /** A one-line, human-readable, redacted message. */
  readonly message: string;
  /** The last error's message (redacted), when retrying or recovering. */
  readonly lastError?: string;
}

/** What `ensureRelease` did. */
export type EnsureAction = "installed" | "upgraded" | "adopted" | "unchanged";
