/**
 * The program-side guard against an update that deletes add-ons it never saw registered
 * (provider/process/lost-registration.ts), on Pulumi's mock runtime in a fresh Node process (the runtime's
 * state is per process): a registration answered with gRPC UNAVAILABLE, which the engine answers
 * when the provider behind it died, makes the program fail by an error log.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { execa } from "execa";
import { repoRoot } from "../../../support/repo-root.js";

/** A program on mocks whose registration fails with gRPC status `code`; prints whether the runtime counted an error. */
function program(code: number): string {
  const dist = `${repoRoot()}/dist/provider/process/lost-registration.js`;
  return `
import * as runtime from "@pulumi/pulumi/runtime/index.js";
import * as log from "@pulumi/pulumi/log/index.js";
import { CustomResource } from "@pulumi/pulumi/resource.js";
import { failProgramOnLostRegistration } from ${JSON.stringify(dist)};
class Thing extends CustomResource { constructor() { super("test:index:Thing", "thing", {}); } }
await runtime.setMocks({ newResource: () => { throw Object.assign(new Error("gone"), { code: ${code} }); }, call: () => ({}) }, "p", "s", false);
failProgramOnLostRegistration(new Thing(), "thing");
setTimeout(() => console.log("errors counted: " + log.hasErrors()), 1000);
`;
}

test("seed 1056: a registration answered with UNAVAILABLE makes the program fail with an error log", async () => {
  const run = await execa(process.execPath, ["--input-type=module", "-e", program(14)], {
    cwd: repoRoot(),
    all: true,
  });
  assert.match(run.all, /errors counted: true/);
  assert.match(
    run.all,
    /helm-handoff: the engine stopped answering while thing was being registered \(it is shutting down, or a provider process died\); the program fails so that the update deletes nothing it did not see\. Run the same operation again\./,
  );
});
