/**
 * The program's connection to its engine in a process that runs many operations, as a fleet job on
 * the Automation API does. An engine that went away leaves the gRPC connection to its address
 * waiting out a reconnect backoff, and a later engine may listen on the same port. The test forces
 * that collision: each operation's engine is reached through a loopback proxy whose address a
 * client made with the runtime's options tried while the proxy refused connections, as a finished
 * run's client does. Real engine (Automation API, inline program), real helm, a real local cluster.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, describe, test } from "node:test";
import * as runtimeSettings from "@pulumi/pulumi/runtime/settings.js";
import { addonStack, liveRelease } from "../../support/addon.js";
import { localChart } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import { startTcpProxy, type TcpProxy } from "../../support/tcp-proxy.js";

/** The SDK's own copies: gRPC's shared connections are per copy of `@grpc/grpc-js`. */
const sdkRequire = createRequire(
  createRequire(import.meta.url).resolve("@pulumi/pulumi/runtime/settings.js"),
);

interface RunCall {
  readonly request: { getArgsList(): string[]; setArgsList(args: string[]): void };
}
type Run = (this: unknown, call: RunCall, callback: unknown) => unknown;

const { LanguageServer } = sdkRequire("../automation/server.js") as {
  LanguageServer: { prototype: { run: Run } };
};
const grpc = sdkRequire("@grpc/grpc-js") as {
  credentials: { createInsecure(): unknown };
};
const { EngineClient } = sdkRequire("../proto/engine_grpc_pb.js") as {
  EngineClient: new (
    address: string,
    credentials: unknown,
    options: unknown,
  ) => {
    getRootResource(request: unknown, callback: (error: { code?: number } | null) => void): void;
  };
};
const { GetRootResourceRequest } = sdkRequire("../proto/engine_pb.js") as {
  GetRootResourceRequest: new () => unknown;
};

/** gRPC's status code for a peer it cannot reach. */
const UNAVAILABLE = 14;

/** A client of the runtime's options that calls `address` once and is never closed; resolves with the call's status code. */
function callAndLeaveOpen(address: string): Promise<number> {
  const options = (runtimeSettings as { grpcClientOptions?: unknown }).grpcClientOptions;
  const client = new EngineClient(address, grpc.credentials.createInsecure(), options);
  return new Promise((resolve) =>
    client.getRootResource(new GetRootResourceRequest(), (e) => resolve(e?.code ?? 0)),
  );
}

describe("the program's connection to its engine", { timeout: 600_000 }, () => {
  const suite = clusterSuite({ name: "engine-conn", helmSpy: true });
  const proxies: TcpProxy[] = [];
  after(async () => {
    await Promise.allSettled(proxies.map((p) => p.close()));
  });

  /**
   * Until the returned function is called, every inline program of this process is given its
   * engine's address through a proxy that a stale client tried while it refused connections.
   * `staleCalls` holds each stale client's status code.
   */
  function engineBehindStaleAddress(staleCalls: number[]): () => void {
    const original = LanguageServer.prototype.run;
    LanguageServer.prototype.run = function (call, callback) {
      const [engine = "", ...rest] = call.request.getArgsList();
      const port = Number(engine.slice(engine.lastIndexOf(":") + 1));
      void (async () => {
        const proxy = await startTcpProxy("127.0.0.1", port);
        proxies.push(proxy);
        proxy.cut("reset");
        staleCalls.push(await callAndLeaveOpen(proxy.address));
        proxy.restore();
        call.request.setArgsList([proxy.address, ...rest]);
        original.call(this, call, callback);
      })().catch((error: unknown) => {
        // The engine shows a failed set-up as the program's error at once, rather than waiting.
        (callback as (error: unknown) => void)(error);
      });
    };
    return () => {
      LanguageServer.prototype.run = original;
    };
  }

  // Found by the fault campaign (`npm run chaos`, seed 483089): the preview planned to delete both add-ons.
  test("seed 483089: an engine on the address of one whose connection waits out a reconnect backoff is reached, and nothing is deleted", async () => {
    const chart = { path: localChart("schema") };
    const kubeconfig = suite.cluster.kubeconfig;
    const s = suite.keep(
      await addonStack(
        [
          { name: "conn-reconcile", args: { kubeconfig, chart, strategy: "Reconcile" } },
          { name: "conn-once", args: { kubeconfig, chart } },
        ],
        suite.spy,
      ),
    );
    await s.up();
    const staleCalls: number[] = [];
    const restore = engineBehindStaleAddress(staleCalls);
    try {
      const preview = await s.preview();
      assert.deepEqual(preview.changeSummary, { same: 3 });
      const up = await s.up();
      assert.deepEqual(up.summary.resourceChanges, { same: 3 });
    } finally {
      restore();
    }
    assert.deepEqual(staleCalls, [UNAVAILABLE, UNAVAILABLE]);
    assert.equal((await liveRelease(suite.cluster, "conn-reconcile"))?.status, "deployed");
    assert.equal((await liveRelease(suite.cluster, "conn-once"))?.status, "deployed");
  });
});
