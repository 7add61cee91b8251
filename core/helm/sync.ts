/**
 * The synchronous helm runner of the cdk8s construct (constructs are built synchronously): the
 * same binary lookup, environment, call dir and sweep, argv, chart preparation, redaction and
 * error mapping as the async {@link HelmRunner}, with `spawnSync` as the only difference. It runs
 * `helm version` and `helm template` (plus the `repo add` a repository chart with credentials
 * needs); no command here talks to a cluster.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import type { ResolvedSpec } from "../spec/index.js";
import { templateArgs, VERSION_ARGS } from "./args.js";
import { checkHelmVersion } from "./binary.js";
import { HelmCall } from "./call.js";
import { helmEnv } from "./env.js";
import { helmFailure } from "./failure.js";
import { Redactor } from "./redact.js";
import type { TemplateOptions } from "./types.js";

/** helm's output can be large (a big operator renders several MB). */
const MAX_BUFFER = 256 * 1024 * 1024;
/** A synchronous helm process is killed (and reported as timed out) after this long. */
const SYNC_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * The version of the helm at `bin` (e.g. `"v4.3.1"`), by running `helm version`.
 * @throws HelmVersionError when it is older than v4
 */
export function helmVersionSync(bin: string): string {
  const call = new HelmCall(undefined, new Redactor());
  try {
    return checkHelmVersion(bin, runSync(bin, call, VERSION_ARGS).stdout);
  } finally {
    call.close();
  }
}

/**
 * Renders a chart with `helm template` synchronously: CRDs included, tests skipped (see
 * `templateFlags`), values from `spec.valueFiles` then `spec.values`.
 *
 * @param bin - the helm binary (see `resolveHelmBinary`)
 * @returns the manifest YAML helm printed
 * @throws HelmError (classified like the async runner's) when helm fails
 */
export function helmTemplateSync(bin: string, spec: ResolvedSpec, options: TemplateOptions = {}): string {
  const call = new HelmCall(undefined, new Redactor());
  try {
    const plan = call.chart(spec);
    for (const step of plan.setup) runSync(bin, call, step.args, step.input);
    return runSync(bin, call, templateArgs(spec, plan.chartArgs, call.valuesArgs(spec), options)).stdout;
  } finally {
    call.close();
  }
}

/** The synchronous spawn: the only part the async runner does differently. */
function runSync(
  bin: string,
  call: HelmCall,
  args: readonly string[],
  input = "",
): { stdout: string; stderr: string } {
  const full = call.argv(args, false);
  const started = Date.now();
  const r = spawnSync(bin, full, {
    env: helmEnv({ dockerConfig: call.dockerConfigDir }),
    input,
    maxBuffer: MAX_BUFFER,
    encoding: "utf8",
    timeout: SYNC_TIMEOUT_MS,
  });
  if (r.status === 0 && r.error === undefined) return { stdout: r.stdout, stderr: r.stderr };
  const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
  throw helmFailure(
    {
      command: [bin, ...full],
      exitCode: r.status ?? undefined,
      signal: r.signal ?? undefined,
      stderr: r.stderr ?? "",
      notFound: code === "ENOENT" || code === "EACCES",
      canceled: false,
      timedOut: code === "ETIMEDOUT",
      durationMs: Date.now() - started,
      cause: r.error,
    },
    call.redactor,
  );
}
