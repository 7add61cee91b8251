/**
 * The program-side guard against an update that deletes add-ons it never saw registered
 * (provider/process/lost-registration.ts), on Pulumi's mock runtime in a fresh Node process (the
 * runtime's state is per process), with a stand-in engine on loopback where the engine's `Log` call
 * matters: a lost registration fails the program and says so once, through a connection of the
 * guard's own; after a failed step (the provider's note) it fails the program and says nothing.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { execa } from "execa";
import { repoRoot } from "../../../support/repo-root.js";

/** What a program run printed and counted. */
interface Run {
  readonly exitCode: number | undefined;
  readonly all: string;
}

/**
 * Runs a program on mocks in which `registrations` resources are guarded and each registration
 * fails with gRPC status `code` after `delays[i]` ms. With `engine`, a stand-in engine on loopback
 * answers each `Log` call after `logDelayMs` and prints what it received; with `noted`, the
 * provider's note of a failed step is left before the registrations fail (with `TMPDIR` set to
 * `providerTmpdir` while it is written, as in a provider process the CLI started with another).
 */
async function runProgram(options: {
  readonly codes: readonly number[];
  readonly delays?: readonly number[];
  readonly engine?: boolean;
  readonly logDelayMs?: number;
  readonly noted?: boolean;
  /** The `TMPDIR` of the provider that leaves the note (by default the program's). */
  readonly providerTmpdir?: string;
}): Promise<Run> {
  const dist = `${repoRoot()}/dist/provider/process`;
  const program = `
import * as grpc from "@grpc/grpc-js";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const enginePb = require("@pulumi/pulumi/proto/engine_pb.js");
const engineGrpc = require("@pulumi/pulumi/proto/engine_grpc_pb.js");
const emptyPb = require("google-protobuf/google/protobuf/empty_pb.js");
let address = "";
if (${options.engine === true}) {
  const server = new grpc.Server();
  server.addService(engineGrpc.EngineService, {
    log: (call, cb) => {
      const r = call.request;
      if (r.getSeverity() !== enginePb.LogSeverity.DEBUG) console.log("engine got [" + r.getSeverity() + "] " + r.getMessage());
      setTimeout(() => cb(null, new emptyPb.Empty()), ${options.logDelayMs ?? 0});
    },
    getRootResource: (_c, cb) => cb(null, new enginePb.GetRootResourceResponse()),
    setRootResource: (_c, cb) => cb(null, new enginePb.SetRootResourceResponse()),
  });
  const port = await new Promise((res, rej) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
  address = "127.0.0.1:" + port;
  process.env.PULUMI_NODEJS_ENGINE = address;
  setTimeout(() => server.forceShutdown(), 3000).unref();
}
const runtime = await import("@pulumi/pulumi/runtime/index.js");
const log = await import("@pulumi/pulumi/log/index.js");
const { CustomResource } = await import("@pulumi/pulumi/resource.js");
const { failProgramOnLostRegistration } = await import(${JSON.stringify(`${dist}/lost-registration.js`)});
const { noteFailedStep } = await import(${JSON.stringify(`${dist}/failed-steps.js`)});
const codes = ${JSON.stringify(options.codes)};
const delays = ${JSON.stringify(options.delays ?? [])};
await runtime.setMocks({
  newResource: async (args) => {
    const i = Number(args.name.slice(5));
    await new Promise((r) => setTimeout(r, delays[i] ?? 0));
    throw Object.assign(new Error("gone"), { code: codes[i] });
  },
  call: () => ({}),
}, "p", "s", false);
class Thing extends CustomResource { constructor(name) { super("test:index:Thing", name, {}); } }
for (let i = 0; i < codes.length; i++) failProgramOnLostRegistration(new Thing("thing" + i), "thing" + i);
// As the provider does when a step fails: after the program started, before the engine stops.
if (${options.noted === true}) {
  const programTmpdir = process.env.TMPDIR;
  if (${JSON.stringify(options.providerTmpdir ?? null)} !== null) process.env.TMPDIR = ${JSON.stringify(options.providerTmpdir ?? null)};
  noteFailedStep([address]);
  if (programTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = programTmpdir;
}
setTimeout(() => console.log("errors counted: " + log.hasErrors() + "; exit code " + process.exitCode), 1500);
`;
  const run = await execa(process.execPath, ["--input-type=module", "-e", program], {
    cwd: repoRoot(),
    all: true,
    reject: false,
  });
  return { exitCode: run.exitCode, all: run.all ?? "" };
}

const LOST =
  "helm-handoff: the engine stopped answering while thing0 was being registered (it is shutting down, or a provider process died); the program fails so that the update deletes nothing it did not see. Run the same operation again.";

test("seed 1056: a registration answered with UNAVAILABLE makes the program fail and says the registration was lost", async () => {
  const run = await runProgram({ codes: [14] });
  assert.match(run.all, /errors counted: true; exit code 32/);
  assert.equal(run.exitCode, 32);
  assert.ok(run.all.includes(`error: ${LOST}`), run.all);
});

test("seed 620523: the lost-registration line reaches the engine once, even when a later registration closes the runtime's channel while it waits", async () => {
  // The first registration stops the runtime's calls; the engine answers logs slowly, so the
  // guard's line would wait behind the runtime's own; the second registration then closes the
  // channel the runtime opened again for those logs.
  const run = await runProgram({ codes: [14, 1], delays: [0, 150], engine: true, logDelayMs: 400 });
  assert.doesNotMatch(run.all, /Channel has been shut down|failed to deliver log message/);
  assert.deepEqual(
    run.all.split("\n").filter((l) => l.startsWith("engine got")),
    [`engine got [3] ${LOST}`],
  );
  assert.match(run.all, /errors counted: true; exit code 32/);
});

test("after a failed step the program fails without a word: the engine shows the step's own error alone", async () => {
  const run = await runProgram({ codes: [14, 1], delays: [0, 100], engine: true, noted: true });
  assert.doesNotMatch(run.all, /engine stopped answering|engine got|Channel has been shut down/);
  assert.match(run.all, /errors counted: true; exit code 32/);
});

test("seed 472017: the note of a failed step is found when the provider runs with another TMPDIR than the program (an Automation API runner's envVars)", async () => {
  const providerTmpdir = await mkdtemp(join(tmpdir(), "hh-provider-tmp-"));
  try {
    const run = await runProgram({
      codes: [14, 1],
      delays: [0, 100],
      engine: true,
      noted: true,
      providerTmpdir,
    });
    assert.doesNotMatch(run.all, /engine stopped answering|engine got|Channel has been shut down/);
    assert.match(run.all, /errors counted: true; exit code 32/);
  } finally {
    await rm(providerTmpdir, { recursive: true, force: true });
  }
});
