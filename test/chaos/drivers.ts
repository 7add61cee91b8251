/**
 * The two ways a run drives Pulumi, behind one interface: the `pulumi` CLI on the campaign's
 * JavaScript project (the `npm pack` tarball, the package's provider as a new user gets it) and the
 * Automation API with an inline program (Pulumi's dynamic provider, or the package's provider as a
 * new user gets it, from the plugin cache). Each run gets a fresh stack and `file://` backend. An operation resolves
 * with what the user saw (never rejects); `recover` is what a user does after a failed one:
 * `recoverInterruptedUpdate(stack)` on the Automation API, `pulumi cancel` then
 * `pulumi refresh --clear-pending-creates` on the CLI.
 *
 * Test-only code.
 *
 * @module
 */
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { ClusterAddon, type ClusterAddonArgs, recoverInterruptedUpdate } from "../../provider/index.js";
import { RELEASE_TYPES } from "../../provider/state/resource.js";
import { type PulumiCli, pulumiCli } from "../support/project.js";
import { readTree, type TestStack, testStack } from "../support/pulumi.js";
import { type World, writeCliAddons } from "./world.js";

/** One add-on of the program. */
export interface Decl {
  readonly name: string;
  readonly args: ClusterAddonArgs;
}

/** What an operation showed its user. */
export interface Outcome {
  readonly ok: boolean;
  /** Everything printed (the error's message included when it failed). */
  readonly output: string;
}

/** The operations a run performs. */
export type Verb = "up" | "refresh" | "destroy";

/** A way to drive the stack. */
export interface Driver {
  /** `cli` or `automation/dynamic` or `automation/package`. */
  readonly label: string;
  /** Declares the program's add-ons for the next operations. */
  setAddons(decls: readonly Decl[]): Promise<void>;
  run(verb: Verb, options?: { readonly replace?: readonly string[] }): Promise<Outcome>;
  /** A preview; `changes` counts every step that is not `same`. */
  preview(): Promise<Outcome & { readonly changes: number }>;
  /** The user's recovery after a failed operation; resolves with what it printed. */
  recover(): Promise<string>;
  /** URN of each add-on's release resource in the state, by add-on name. */
  releaseUrns(): Promise<Map<string, string>>;
  /** Every file of the backend (state, history, locks) as text, for the secret scan. */
  stateText(): Promise<string>;
  dispose(): Promise<void>;
}

/** The resource name of a URN (its last `::` part). */
function urnName(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

function releaseUrnsOf(deployment: unknown): Map<string, string> {
  const resources = (deployment as { resources?: Array<{ urn: string; type: string }> }).resources ?? [];
  return new Map(resources.filter((r) => RELEASE_TYPES.includes(r.type)).map((r) => [urnName(r.urn), r.urn]));
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const all = (error as { all?: unknown }).all;
    return typeof all === "string" ? all : error.message;
  }
  return String(error);
}

/** A driver on the Automation API with an inline program. */
export async function automationDriver(world: World, packageProvider: boolean): Promise<Driver> {
  let decls: readonly Decl[] = [];
  const test: TestStack = await testStack({
    env: { TMPDIR: world.sandbox.dir },
    route: packageProvider ? "default" : "dynamic",
    program: async () => {
      const outputs: Record<string, unknown> = {};
      for (const d of decls) outputs[`${d.name}Status`] = new ClusterAddon(d.name, d.args).status;
      return outputs;
    },
  });
  const { stack } = test;
  /** Runs one operation with its output captured. */
  const attempt = async <T>(
    op: (cb: { color: "never"; onOutput: (s: string) => void; onError: (s: string) => void }) => Promise<T>,
  ): Promise<Outcome & { readonly result?: T }> => {
    let output = "";
    const append = (s: string): void => {
      output += s;
    };
    try {
      const result = await op({ color: "never", onOutput: append, onError: append });
      return { ok: true, output, result };
    } catch (error) {
      return { ok: false, output: `${output}\n${messageOf(error)}` };
    }
  };
  return {
    label: packageProvider ? "automation/package" : "automation/dynamic",
    setAddons: async (next) => {
      decls = next;
    },
    run: (verb, options = {}) =>
      attempt((cb) =>
        verb === "up"
          ? stack.up({ ...cb, ...(options.replace === undefined ? {} : { replace: [...options.replace] }) })
          : verb === "refresh"
            ? stack.refresh(cb)
            : stack.destroy(cb),
      ),
    preview: async () => {
      const outcome = await attempt((cb) => stack.preview({ ...cb, diff: true }));
      const summary = outcome.result?.changeSummary ?? {};
      const changes = Object.entries(summary)
        .filter(([op]) => op !== "same")
        .reduce((sum, [, n]) => sum + (n ?? 0), 0);
      return { ok: outcome.ok, output: outcome.output, changes: outcome.ok ? changes : -1 };
    },
    recover: async () => {
      const lines: string[] = [];
      await recoverInterruptedUpdate(stack, { onMessage: (l) => lines.push(l) });
      return lines.join("\n");
    },
    releaseUrns: async () => releaseUrnsOf((await stack.exportStack()).deployment),
    stateText: () => test.stateText(),
    dispose: () => test.dispose(),
  };
}

/** A driver on the `pulumi` CLI and the campaign's JavaScript project. */
export async function cliDriver(world: World): Promise<Driver> {
  const cli: PulumiCli = await pulumiCli(world.project.dir, { TMPDIR: world.sandbox.dir });
  const attempt = async (args: readonly string[]): Promise<Outcome> => {
    try {
      const r = await cli.run(args);
      return { ok: true, output: r.all };
    } catch (error) {
      return { ok: false, output: messageOf(error) };
    }
  };
  return {
    label: "cli",
    setAddons: (decls) => writeCliAddons(world, [...decls]),
    run: (verb, options = {}) =>
      attempt([
        verb,
        "--yes",
        "--skip-preview",
        ...(options.replace ?? []).flatMap((urn) => ["--replace", urn]),
      ]),
    preview: async () => {
      const outcome = await attempt(["preview", "--diff", "--expect-no-changes"]);
      return { ...outcome, changes: outcome.ok ? 0 : 1 };
    },
    recover: async () => {
      // docs/troubleshooting.md: a metadata file a killed pulumi left unreadable goes first.
      const removed = await removeBrokenAttrs(join(cli.backendDir, ".pulumi"));
      const cancel = await attempt(["cancel", "--yes"]);
      const refresh = await attempt(["refresh", "--yes", "--skip-preview", "--clear-pending-creates"]);
      return [...removed.map((f) => `removed ${f}`), cancel.output, refresh.output].join("\n");
    },
    releaseUrns: async () => {
      const exported = JSON.parse((await cli.run(["stack", "export"])).stdout) as { deployment: unknown };
      return releaseUrnsOf(exported.deployment);
    },
    stateText: () => readTree(cli.backendDir),
    dispose: () => cli.dispose(),
  };
}

/** The CLI user's step of docs/troubleshooting.md: removes every `*.attrs` file that is not JSON. */
async function removeBrokenAttrs(dir: string): Promise<string[]> {
  const removed: string[] = [];
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  for (const entry of entries.filter((e) => e.endsWith(".attrs"))) {
    const file = join(dir, entry);
    try {
      JSON.parse(await readFile(file, "utf8"));
    } catch {
      await rm(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}
