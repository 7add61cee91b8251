/**
 * A loopback TCP proxy that can cut the network between its clients and one target and restore it:
 * the fault-campaign's stand-in for a network partition between a runner and its API server. A
 * client points at the proxy (TLS passes through untouched, so the target's serving certificate
 * must name 127.0.0.1, as a local cluster's does). While cut, every open connection is reset and
 * every new one is either reset at once (`reset`: the peer is down) or accepted and never answered
 * (`blackhole`: packets are lost), until {@link TcpProxy.restore}.
 *
 * Test-only code.
 *
 * @module
 */
import { type AddressInfo, connect, createServer, type Socket } from "node:net";

/** How a cut network behaves for a new connection. */
export type CutMode = "reset" | "blackhole";

/** A running proxy. */
export interface TcpProxy {
  /** `127.0.0.1:PORT` the clients connect to. */
  readonly address: string;
  /** Resets every open connection; new ones behave as `mode` says until {@link restore}. */
  cut(mode: CutMode): void;
  /** Lets connections through again (held blackholed ones are reset, as their clients would time out). */
  restore(): void;
  /** Whether the network is cut now. */
  readonly isCut: boolean;
  /** Stops the proxy and closes every connection. */
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (a port the kernel picks) forwarding to `targetHost:targetPort`. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let cutMode: CutMode | undefined;
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (cutMode === "reset") {
      client.resetAndDestroy();
      return;
    }
    if (cutMode === "blackhole") return; // held, never answered
    const upstream = connect({ host: targetHost, port: targetPort });
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0 }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const resetAll = (): void => {
    for (const socket of open) socket.resetAndDestroy();
  };
  return {
    address: `127.0.0.1:${port}`,
    get isCut() {
      return cutMode !== undefined;
    },
    cut(mode) {
      cutMode = mode;
      resetAll();
    },
    restore() {
      if (cutMode === "blackhole") resetAll();
      cutMode = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        resetAll();
        server.close(() => resolve());
      }),
  };
}
