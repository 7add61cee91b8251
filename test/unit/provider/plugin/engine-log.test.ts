/**
 * The package's provider's progress lines reach the engine's `Log` call (provider/plugin/engine-log.ts):
 * a stand-in engine on loopback (plaintext HTTP/2) receives one gRPC `pulumirpc.Engine/Log` call per
 * line, decoded here with the SDK's generated messages, a warning line as a warning.
 */
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { engineLogSink } from "../../../../provider/plugin/engine-log.js";
import { engineAddress } from "../../../../provider/process/failed-steps.js";

const require = createRequire(import.meta.url);
const enginePb = require("@pulumi/pulumi/proto/engine_pb.js") as {
  LogRequest: { deserializeBinary(b: Uint8Array): { getSeverity(): number; getMessage(): string } };
};

test("the engine's address is the plugin's first argument that is HOST:PORT", () => {
  assert.equal(engineAddress(["--logflow", "127.0.0.1:40123"]), "127.0.0.1:40123");
  assert.equal(engineAddress(["--tracing", "x"]), undefined);
});

test("each progress line is one Log call to the engine, a warning line as a warning", async () => {
  const received: Array<{ path: string; severity: number; message: string }> = [];
  const server = http2.createServer();
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const body = Buffer.concat(chunks);
      const request = enginePb.LogRequest.deserializeBinary(body.subarray(5, 5 + body.readUInt32BE(1)));
      received.push({
        path: String(headers[":path"]),
        severity: request.getSeverity(),
        message: request.getMessage(),
      });
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(Buffer.from([0, 0, 0, 0, 0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const sink = engineLogSink(`127.0.0.1:${port}`);
  sink("[helm-handoff] cni: installing default/cni (attempt 1, timeout 5m)");
  sink(
    "[helm-handoff] cni: warning: cluster https://x unreachable for 30s; leaving release default/cni as it is and dropping it from state",
  );
  for (let i = 0; i < 100 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  server.close();
  assert.deepEqual(
    received.sort((a, b) => a.severity - b.severity),
    [
      {
        path: "/pulumirpc.Engine/Log",
        severity: 1,
        message: "[helm-handoff] cni: installing default/cni (attempt 1, timeout 5m)",
      },
      {
        path: "/pulumirpc.Engine/Log",
        severity: 2,
        message:
          "[helm-handoff] cni: warning: cluster https://x unreachable for 30s; leaving release default/cni as it is and dropping it from state",
      },
    ],
  );
});
