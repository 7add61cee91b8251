/**
 * The fault campaign's own rules, without a cluster: a seed draws the same run every time, what a
 * user saw is sorted into typed errors with or without their next step, and the model follows
 * the strategies' promises (test/chaos/).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { worldOf } from "../../chaos/campaign.js";
import { drawFault } from "../../chaos/faults.js";
import {
  type AddonModel,
  afterDestroy,
  afterUp,
  drawAddons,
  leftUnreachable,
  programValues,
} from "../../chaos/model.js";
import { seededRng } from "../../chaos/rng.js";
import { classifyErrors } from "../../chaos/user-errors.js";

test("the same seed draws the same add-ons and faults, and another seed other ones", () => {
  const draw = (seed: number): unknown => {
    const rng = seededRng(seed);
    return { addons: drawAddons(rng, 3, "c"), faults: [drawFault(rng), drawFault(rng), drawFault(rng)] };
  };
  assert.deepEqual(draw(107), draw(107));
  assert.notDeepEqual(draw(107), draw(108));
});

test("a deadline error with its next step is typed and complete, one without it is typed but incomplete", () => {
  const output = [
    "Diagnostics:",
    "  helm-handoff:index:ClusterAddon (a):",
    "    error: uninstall of release default/a did not succeed within the deadline of 20s after 3 attempt(s):",
    "      #1 at 2026-12-05T00:00:00.000Z: helm status exited with code 1 (transient: API server or repository unreachable)",
    "    last cause: connection refused",
    "    next step: fix what the last cause names, then run the same operation again",
    "",
    "  helm-handoff:index:ClusterAddon (b):",
    "    error: install of release default/b did not succeed within the deadline of 20s after 1 attempt(s):",
    "    last cause: connection refused",
    "",
    "  pulumi:pulumi:Stack (s):",
    "    error: update failed",
  ].join("\n");
  assert.deepEqual(classifyErrors(output, false), [
    {
      kind: "typed",
      message:
        "uninstall of release default/a did not succeed within the deadline of 20s after 3 attempt(s):",
      nextStep: true,
    },
    {
      kind: "typed",
      message: "install of release default/b did not succeed within the deadline of 20s after 1 attempt(s):",
      nextStep: false,
    },
  ]);
});

test("an engine error is the direct effect of a kill only when the attempt's fault killed a process", () => {
  const output = "    error: could not read plugin [/bin/pulumi-resource-pulumi-nodejs]: exit status -1\n";
  assert.equal(classifyErrors(output, true)[0]?.kind, "killed");
  // seed 1181: the engine's words for a plugin killed while it served
  const died = "    error: Detected that /x/pulumi-resource-helm-handoff exited prematurely.\n";
  assert.equal(classifyErrors(died, true)[0]?.kind, "killed");
  assert.equal(classifyErrors(output, false)[0]?.kind, "untyped");
});

test("seed 472016: a provider killed before it answered the engine's handshake is the kill's direct effect, and untyped without a kill", () => {
  const output =
    "    error: helm-handoff (resource) plugin [/h/plugins/resource-helm-handoff-v0.1.0/pulumi-resource-helm-handoff] did not come alive: failed to handshake with '/h/plugins/resource-helm-handoff-v0.1.0/pulumi-resource-helm-handoff': rpc error: code = DeadlineExceeded desc = context deadline exceeded\n";
  assert.deepEqual(
    classifyErrors(output, true).map((e) => e.kind),
    ["killed"],
  );
  assert.deepEqual(
    classifyErrors(output, false).map((e) => e.kind),
    ["untyped"],
  );
});

test("seed 3420: a provider killed after it printed its port and before it served is the kill's direct effect, and untyped without a kill", () => {
  const output =
    "    error: could not load provider for resource urn:pulumi:s::chaos::helm-handoff:index:ClusterAddon::a: could not create provider urn:pulumi:s::chaos::pulumi:providers:helm-handoff::default_0_1_0::1: load plugin for helm-handoff provider 'urn:pulumi:s::chaos::pulumi:providers:helm-handoff::default_0_1_0': helm-handoff (resource) plugin [/h/plugins/resource-helm-handoff-v0.1.0/pulumi-resource-helm-handoff] did not begin responding to RPC connection\n";
  assert.deepEqual(
    classifyErrors(output, true).map((e) => e.kind),
    ["killed"],
  );
  assert.deepEqual(
    classifyErrors(output, false).map((e) => e.kind),
    ["untyped"],
  );
});

test("after an up, Reconcile releases follow the program and ApplyOnce ones keep their first values", () => {
  const [once, reconcile] = drawAddons(seededRng(1), 2, "m") as [AddonModel, AddonModel];
  once.strategy = "ApplyOnce";
  reconcile.strategy = "Reconcile";
  afterUp([once, reconcile], 1);
  const first = programValues(once, 1);
  once.gen++;
  reconcile.gen++;
  afterUp([once, reconcile], 1);
  assert.deepEqual(once.expected, first);
  assert.deepEqual(reconcile.expected, programValues(reconcile, 1));
});

test("after a destroy, Reconcile releases are gone unless the delete found the cluster unreachable", () => {
  const [a, b] = drawAddons(seededRng(2), 2, "d") as [AddonModel, AddonModel];
  a.strategy = "Reconcile";
  b.strategy = "Reconcile";
  afterUp([a, b], 2);
  const warning =
    "[helm-handoff] d-1: warning: cluster https://127.0.0.1:1 unreachable for 30s; leaving release default/d-1 as it is and dropping it from state";
  afterDestroy([a, b], leftUnreachable(warning));
  assert.equal(a.expected, undefined);
  assert.deepEqual(b.expected, programValues(b, 2));
  assert.deepEqual([a.inStack, b.inStack], [false, false]);
});

test("a mixed campaign draws a capi run for about one seed in ten, the same seeds every time, and the other choices are what they say", () => {
  const capi = (from: number, count: number): number[] =>
    Array.from({ length: count }, (_, i) => from + i).filter((seed) => worldOf("mixed", seed) === "capi");
  assert.equal(capi(0, 1000).length, 95);
  assert.deepEqual(capi(9000, 40), [9004, 9019, 9022, 9026, 9029, 9031, 9034, 9038]);
  assert.deepEqual([worldOf("pulumi", 9004), worldOf("capi", 9000)], ["pulumi", "capi"]);
});
