/**
 * The load beside a run: what a real machine also does while `pulumi up` runs (a CI runner's
 * other jobs, a laptop's browser, a management cluster starting). `cpu` starts more busy
 * processes than there are cores; `io` writes and syncs large files in a loop where the stacks'
 * temp dirs and `file://` backends are (the sandbox and the test process's temp dir); `cluster`
 * starts another local cluster (etcd and kube-apiserver) and stops it when the run ends. A run's
 * load is drawn from its seed by a generator of its own, so adding the load leaves every other
 * draw of a seed as it was; the campaign can also put one load on every run.
 *
 * The load's processes never carry the sandbox's `TMPDIR`, so the campaign's process faults
 * (which kill what does) never take them for the product's processes.
 *
 * Test-only code.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalCluster, startLocalCluster } from "../../local-cluster/index.js";
import { seededRng } from "./rng.js";
import type { World } from "./world.js";

/** Every kind of load, in the order the figures list them. */
export const LOAD_KINDS = ["none", "cpu", "io", "cluster"] as const;

/** One kind of load. */
export type LoadKind = (typeof LOAD_KINDS)[number];

/** The campaign's choice: one load for every run, or one drawn per run. */
export type LoadChoice = LoadKind | "drawn";

/** A load that runs until stopped. */
export interface Load {
  readonly kind: LoadKind;
  /** What it does, for the run's log. */
  readonly note: string;
  /** Ends it and waits until its processes are gone. */
  stop(): Promise<void>;
}

/** The run's load: `choice` itself, or drawn from `seed`. */
export function loadOf(choice: LoadChoice, seed: number): LoadKind {
  if (choice !== "drawn") return choice;
  // A generator of its own: the run's other draws stay those of the seed without a load.
  return seededRng((seed ^ 0x10ad10ad) >>> 0).pick(LOAD_KINDS);
}

/** A busy loop in each child: more of them than cores. */
const SPIN = "for (;;) {}";

/** Writes and syncs a 16 MiB file in each directory in turn, for ever. */
const IO = `
const fs = require("node:fs");
const path = require("node:path");
const dirs = JSON.parse(process.argv[1]);
const block = Buffer.alloc(16 * 1024 * 1024, 7);
for (let i = 0; ; i++) {
  const file = path.join(dirs[i % dirs.length], "chaos-load-io-" + process.pid);
  const fd = fs.openSync(file, "w");
  fs.writeSync(fd, block);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.rmSync(file, { force: true });
}
`;

/** Starts `kind` beside the run on `world`. */
export async function startLoad(kind: LoadKind, world: World): Promise<Load> {
  switch (kind) {
    case "none":
      return { kind, note: "no load", stop: async () => undefined };
    case "cpu": {
      const n = availableParallelism() + 1;
      const children = Array.from({ length: n }, () => node(["-e", SPIN]));
      return { kind, note: `${n} busy processes on ${n - 1} core(s)`, stop: () => stopAll(children) };
    }
    case "io": {
      const dirs = [world.sandbox.dir, tmpdir()];
      const children = [node(["-e", IO, JSON.stringify(dirs)]), node(["-e", IO, JSON.stringify(dirs)])];
      return {
        kind,
        note: "2 writers syncing 16 MiB files in the temp dirs",
        stop: async () => {
          await stopAll(children);
          // A writer killed between its write and its rm leaves its file.
          const files = dirs.flatMap((d) => children.map((c) => join(d, `chaos-load-io-${c.pid}`)));
          await Promise.all(files.map((f) => rm(f, { force: true })));
        },
      };
    }
    case "cluster": {
      // Started in the background: the run goes on while it comes up, as beside a management cluster.
      const starting: Promise<LocalCluster | undefined> = startLocalCluster({ name: "chaos-load" }).catch(
        () => undefined,
      );
      return {
        kind,
        note: "another local cluster starting beside the run",
        stop: async () => {
          await (await starting)?.stop();
        },
      };
    }
  }
}

/** A Node.js child without the sandbox's `TMPDIR` (see the module comment). */
function node(args: readonly string[]): ChildProcess {
  const child = spawn(process.execPath, [...args], {
    stdio: "ignore",
    env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir() },
  });
  child.on("error", () => undefined);
  return child;
}

async function stopAll(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once("exit", () => resolve());
          c.kill("SIGKILL");
        }),
    ),
  );
}
