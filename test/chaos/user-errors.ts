/**
 * What a user saw when an operation failed: the error diagnostics the engine printed, sorted into
 * helm-handoff's typed errors (each message shape below is one error class of `core/errors.ts` or
 * `OwnershipError`), the direct effect of a killed process (the engine losing its provider or
 * being killed itself), and anything else, which the campaign counts as a violation: an error a
 * user cannot act on.
 *
 * Test-only code.
 *
 * @module
 */

/** One error a user saw, and what it is. */
export interface SeenError {
  readonly kind: "typed" | "killed" | "untyped";
  /** The error's first line. */
  readonly message: string;
}

/** The first line of each typed error helm-handoff raises, by class. */
const TYPED: ReadonlyArray<readonly [string, RegExp]> = [
  ["HelmError", /^helm \S+ (exited with code \d+|timed out|was killed|was cancelled) \((transient|permanent|state): /],
  ["DeadlineExceededError", / did not succeed within the deadline of \S+ after \d+ attempt\(s\):/],
  ["OwnershipError", /^release \S+ is not this resource's: /],
  ["ReleaseBusyError", /^\S+\/\S+: .*(pending-|uninstalling|kept changing)/],
  ["CredentialsRejectedError", /^the API server \S+ rejected the kubeconfig's credentials/],
  ["SpecError", /^[\w.[\]]+: /],
];

/** What the engine prints when the process it talks to was killed, or when it was killed itself. */
const KILLED =
  /error reading from server|transport is closing|connection refused|EOF|signal: killed|code: -1|exit status|was killed|Unavailable|plugin .* exited|unexpected end|context canceled|SIGKILL/i;

/** Engine summary lines that only say that the operation failed. */
const SUMMARY = /^(update|preview|refresh|destroy) failed$|^\d+ errors? occurred/;

/** The error messages of an operation's output: every `error: ` diagnostic, first line each. */
export function errorLines(output: string): string[] {
  const found = new Set<string>();
  for (const line of output.split("\n")) {
    const m = /^\s*error: (.*)$/.exec(line);
    if (m?.[1] !== undefined) {
      const message = m[1].trim();
      if (!SUMMARY.test(message)) found.add(message);
    }
  }
  return [...found];
}

/**
 * Sorts the errors of a failed operation's output. `killedProcess` says whether the fault of this
 * attempt killed the pulumi CLI or the provider, whose direct effects are then expected.
 */
export function classifyErrors(output: string, killedProcess: boolean): SeenError[] {
  return errorLines(output).map((message) => {
    if (TYPED.some(([, shape]) => shape.test(message))) return { kind: "typed", message };
    if (killedProcess && KILLED.test(message)) return { kind: "killed", message };
    return { kind: "untyped", message };
  });
}

/** The class name of a typed error message, or undefined. */
export function typedErrorClass(message: string): string | undefined {
  return TYPED.find(([, shape]) => shape.test(message))?.[0];
}
