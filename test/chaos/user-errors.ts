/**
 * What a user saw when an operation failed: the error diagnostics the engine printed, sorted into
 * helm-handoff's typed errors (each message shape below is one error class of `core/errors.ts` or
 * `OwnershipError`, with the words that give its next step), the direct effect of a killed process
 * (the engine losing its provider or being killed itself), and anything else. The campaign counts
 * an untyped error, or a typed one without its next step, as a violation: an error a user cannot
 * act on.
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
  /** Whether the message says what to do next (typed errors only). */
  readonly nextStep: boolean;
}

/** Each typed error helm-handoff raises: class, the shape of its first line, the shape of its next step. */
const TYPED: ReadonlyArray<readonly [string, RegExp, RegExp]> = [
  [
    "HelmError",
    /^helm \S+ (exited with code \d+|timed out|was killed|was cancelled) \((transient|permanent|state): /,
    /^\s*next step: \S/m,
  ],
  [
    "DeadlineExceededError",
    / did not succeed within the deadline of \S+ after \d+ attempt\(s\):/,
    /^\s*next step: \S/m,
  ],
  ["OwnershipError", /^release \S+ is not this resource's: /, /use strategy "ApplyOnce"|set adopt: true/],
  [
    "lost registration",
    /^helm-handoff: the engine stopped answering while \S+ was being registered/,
    /Run the same operation again\./,
  ],
  [
    "ReleaseBusyError",
    /^\S+\/\S+: .*(pending-|uninstalling|kept changing)/,
    /waiting for the other operation/,
  ],
  [
    "CredentialsRejectedError",
    /^the API server \S+ rejected the kubeconfig's credentials/,
    /check the user's token/,
  ],
];

/**
 * What the engine prints when the process it talks to was killed, or when it was killed itself (a
 * provider killed before it answered the engine's handshake: `did not come alive`, seed 472016;
 * killed after it printed its port, before it served: `did not begin responding`, seed 3420).
 */
const KILLED =
  /exited prematurely|did not come alive|did not begin responding|error reading from server|transport is closing|connection refused|EOF|signal: killed|code: -1|exit status|was killed|Unavailable|plugin .* exited|unexpected end|context canceled|SIGKILL/i;

/** Engine summary lines that only say that the operation failed. */
const SUMMARY = /^(update|preview|refresh|destroy) failed$|^\d+ errors? occurred/;

/**
 * The error messages of an operation's output: every `error: ` diagnostic with the lines that
 * continue it (up to the next diagnostic, resource header or unindented line), once each.
 */
export function errorMessages(output: string): string[] {
  const found = new Map<string, string>();
  let current: string[] | undefined;
  const flush = (): void => {
    if (current === undefined) return;
    const first = current[0] ?? "";
    if (!SUMMARY.test(first) && !found.has(first)) found.set(first, current.join("\n"));
    current = undefined;
  };
  for (const line of output.split("\n")) {
    const m = /^\s*error: (.*)$/.exec(line);
    if (m?.[1] !== undefined) {
      flush();
      current = [m[1].trim()];
    } else if (current !== undefined) {
      if (/^\S/.test(line) || /^ {2}\S.*\):$/.test(line)) flush();
      else current.push(line);
    }
  }
  flush();
  return [...found.values()];
}

/**
 * Sorts the errors of a failed operation's output. `killedProcess` says whether the fault of this
 * attempt killed the pulumi CLI or the provider, whose direct effects are then expected.
 */
export function classifyErrors(output: string, killedProcess: boolean): SeenError[] {
  return errorMessages(output).map((text) => {
    const message = text.split("\n", 1)[0] ?? "";
    const typed = TYPED.find(([, shape]) => shape.test(message));
    if (typed !== undefined) return { kind: "typed", message, nextStep: typed[2].test(text) };
    if (killedProcess && KILLED.test(message)) return { kind: "killed", message, nextStep: false };
    return { kind: "untyped", message, nextStep: false };
  });
}

/** The class name of a typed error message, or undefined. */
export function typedErrorClass(message: string): string | undefined {
  return TYPED.find(([, shape]) => shape.test(message))?.[0];
}
