import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, join } from "node:path";
import { after, describe, it, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { sendRequest } from "../../../local-cluster/control-plane/api.js";
import { toolchainBinDir } from "../../../local-cluster/control-plane/binaries.js";
import { type ProcessIdentity, processIdentity } from "../../../local-cluster/process/identity.js";

const CLI = fileURLToPath(new URL("../../../local-cluster/cli.js", import.meta.url));
const USAGE = `usage: helm-handoff-local up [--name N] [--workloads] [--gitops flux|argocd] [--capi [--workload-clusters N]] [--detach]
       helm-handoff-local down [--name N]
`;

// The CLI keeps its state under XDG_CACHE_HOME, which also moves the default toolchain dir: put this
// process's toolchain first on PATH so that the CLI still finds etcd and kube-apiserver.
const cache = mkdtempSync(join(tmpdir(), "helm-handoff-cli-test-"));
const toolchain = process.env.HELM_HANDOFF_TOOLCHAIN_BIN || toolchainBinDir();
const env = { ...process.env, XDG_CACHE_HOME: cache, PATH: `${toolchain}${delimiter}${process.env.PATH}` };
const stateDir = join(cache, "helm-handoff", "local-clusters");

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Linux /proc view of a process; undefined when there is none. */
function proc(pid: number): { ppid: number; state: string; cmdline: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state = "", ppid = "0"] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    return { ppid: Number(ppid), state, cmdline };
  } catch {
    return undefined;
  }
}

/** All pids but zombies: an exited orphan may stay listed until PID 1 reaps it (seconds, in a sandbox). */
function livePids(): number[] {
  const pids = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  return pids.map(Number).filter((pid) => !["Z", "X", undefined].includes(proc(pid)?.state));
}

const isRunning = (pid: number) => livePids().includes(pid);
const childrenOf = (pid: number) => livePids().filter((p) => proc(p)?.ppid === pid);
const mentioning = (dir: string) => livePids().filter((p) => proc(p)?.cmdline.includes(dir));
/** The executable's file name, or the script's for node. */
function program(pid: number): string {
  const [command = "", script = ""] = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  return basename(command) === "node" ? basename(script) : basename(command);
}

after(() => rmSync(cache, { recursive: true, force: true }));

interface State {
  name: string;
  pid: number;
  kubeconfigPath: string;
  server: string;
  dir: string;
  process?: ProcessIdentity;
}

test("no command, an unknown command or an unknown option prints the usage on stderr and exits with 2; --help prints it on stdout", async () => {
  assert.deepEqual(await cli(), { code: 2, stdout: "", stderr: USAGE });
  assert.deepEqual(await cli("frobnicate"), {
    code: 2,
    stdout: "",
    stderr: `helm-handoff-local: unknown command "frobnicate"\n${USAGE}`,
  });
  const bogus = await cli("down", "--bogus");
  assert.equal(bogus.code, 2);
  assert.ok(bogus.stderr.startsWith("helm-handoff-local: Unknown option '--bogus'."), bogus.stderr);
  assert.ok(bogus.stderr.endsWith(`\n${USAGE}`), bogus.stderr);
  assert.deepEqual(await cli("--help"), { code: 0, stdout: USAGE, stderr: "" });
  assert.deepEqual(await cli("up", "--gitops", "jenkins"), {
    code: 2,
    stdout: "",
    stderr: `helm-handoff-local: --gitops must be "flux" or "argocd", not "jenkins"\n${USAGE}`,
  });
  assert.deepEqual(await cli("up", "--workload-clusters", "2"), {
    code: 2,
    stdout: "",
    stderr: `helm-handoff-local: --workload-clusters needs --capi\n${USAGE}`,
  });
  assert.deepEqual(await cli("up", "--capi", "--workload-clusters", "two"), {
    code: 2,
    stdout: "",
    stderr: `helm-handoff-local: --workload-clusters must be a number >= 0, not "two"\n${USAGE}`,
  });
});

test("down of a cluster that is not running says so, exits with 0 and forgets a stale state file", async () => {
  assert.deepEqual(await cli("down", "--name", "ghost"), {
    code: 0,
    stdout: "",
    stderr: 'local cluster "ghost" is not running\n',
  });
  const dead = spawnSync(process.execPath, ["-e", ""]).pid;
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, "stale.json"), JSON.stringify({ name: "stale", pid: dead }));
  assert.deepEqual(await cli("down", "--name", "stale"), {
    code: 0,
    stdout: "",
    stderr: 'local cluster "stale" is not running\n',
  });
  assert.equal(existsSync(join(stateDir, "stale.json")), false);
});

test("down does not signal a recorded pid that is another process now, and forgets the state file", async () => {
  const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  try {
    const pid = other.pid ?? 0;
    await new Promise((resolve) => other.once("spawn", resolve));
    const actual = processIdentity(pid);
    assert.ok(actual, "the other process runs");
    const base = {
      name: "reused",
      pid,
      kubeconfigPath: "/nonexistent/kubeconfig",
      server: "https://127.0.0.1:1",
      dir: "/nonexistent",
    };
    const recorded: Record<string, unknown> = {
      "the pid was reused (another start time)": {
        ...base,
        process: { ...actual, startTime: String(Number(actual.startTime) - 1) },
      },
      "another command line": {
        ...base,
        process: { ...actual, cmdline: [process.execPath, CLI, "up", "--name", "reused"] },
      },
      "no recorded identity (an older state file)": base,
    };
    mkdirSync(stateDir, { recursive: true });
    for (const [what, state] of Object.entries(recorded)) {
      writeFileSync(join(stateDir, "reused.json"), JSON.stringify(state));
      assert.deepEqual(
        await cli("down", "--name", "reused"),
        {
          code: 0,
          stdout: "",
          stderr: `local cluster "reused" is not running (pid ${pid} is another process now: left alone)\n`,
        },
        what,
      );
      assert.equal(existsSync(join(stateDir, "reused.json")), false, what);
      assert.deepEqual(processIdentity(pid), actual, `${what}: the other process still runs`);
      assert.equal(other.signalCode, null, what);
    }
  } finally {
    other.kill("SIGKILL");
  }
});

test("an invalid --name is refused before any file is touched", async () => {
  const outside = join(cache, "helm-handoff", "escape.json");
  writeFileSync(outside, "{}\n");
  for (const command of ["up", "down"]) {
    assert.deepEqual(await cli(command, "--name", "../escape"), {
      code: 1,
      stdout: "",
      stderr: 'helm-handoff-local: invalid cluster name "../escape": use lowercase letters, digits and "-"\n',
    });
  }
  assert.equal(readFileSync(outside, "utf8"), "{}\n");
});

describe("a cluster started with up --detach", { timeout: 300_000 }, () => {
  const name = `cli-${process.pid}`;
  const statePath = join(stateDir, `${name}.json`);
  let state: State | undefined;

  after(async () => {
    await cli("down", "--name", name);
    const leftovers = state ? [state.pid, ...mentioning(state.dir)] : [];
    for (const pid of leftovers) if (isRunning(pid)) process.kill(pid, "SIGKILL");
  });

  it("returns once the cluster is ready, printing a working kubeconfig path and recording a state file", async () => {
    const run = await cli("up", "--detach", "--name", name);
    assert.ok(existsSync(statePath), `no state file after ${JSON.stringify(run)}`);
    state = JSON.parse(readFileSync(statePath, "utf8")) as State;
    assert.deepEqual(run, { code: 0, stdout: `${state.kubeconfigPath}\n`, stderr: "" });
    assert.equal(state.name, name);
    assert.ok(isRunning(state.pid), `pid ${state.pid} of the up process is not running`);
    assert.deepEqual(
      state.process,
      processIdentity(state.pid),
      "the up process's start time and command line",
    );

    const config = parse(readFileSync(state.kubeconfigPath, "utf8")) as {
      clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
      users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
    };
    const { server, "certificate-authority-data": ca } = config.clusters[0]!.cluster;
    const user = config.users[0]!.user;
    const pem = (base64: string) => Buffer.from(base64, "base64").toString("utf8");
    const tls = {
      ca: pem(ca),
      cert: pem(user["client-certificate-data"]),
      key: pem(user["client-key-data"]),
    };
    assert.equal(server, state.server);
    const readyz = await sendRequest(`${server}/readyz`, { tls });
    assert.deepEqual({ status: readyz.status, text: readyz.text }, { status: 200, text: "ok" });
    const namespace = await sendRequest(`${server}/api/v1/namespaces/kube-system`, { tls });
    assert.equal(namespace.status, 200, namespace.text);
  });

  it("refuses a second up of the same name while it runs", async () => {
    assert.ok(state, "the cluster did not start");
    assert.deepEqual(await cli("up", "--detach", "--name", name), {
      code: 1,
      stdout: "",
      stderr: `helm-handoff-local: local cluster "${name}" is already running (pid ${state.pid}); stop it with: helm-handoff-local down --name ${name}\n`,
    });
    assert.deepEqual(JSON.parse(readFileSync(statePath, "utf8")), state);
  });

  it("is stopped by down: no process, no server, no state file and no temp dir are left", async () => {
    assert.ok(state, "the cluster did not start");
    const children = childrenOf(state.pid);
    assert.deepEqual(children.map(program).sort(), ["etcd", "guard.js", "kube-apiserver"]);
    assert.deepEqual(mentioning(state.dir).map(program).sort(), ["etcd", "kube-apiserver"]);

    assert.deepEqual(await cli("down", "--name", name), {
      code: 0,
      stdout: "",
      stderr: `local cluster "${name}" stopped\n`,
    });
    // down returns once the state file is gone, which the up process removes just before it exits.
    for (const deadline = Date.now() + 10_000; isRunning(state.pid) && Date.now() < deadline; )
      await sleep(50);
    assert.deepEqual(
      [state.pid, ...children].filter(isRunning),
      [],
      "processes of the cluster still running",
    );
    assert.deepEqual(mentioning(state.dir), [], "processes mentioning the cluster's dir still running");
    await assert.rejects(sendRequest(`${state.server}/readyz`), { code: "ECONNREFUSED" });
    assert.equal(existsSync(statePath), false);
    assert.equal(existsSync(state.dir), false);
  });
});
