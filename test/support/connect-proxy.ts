/**
 * A tiny HTTP CONNECT proxy on loopback for the tests of kubeconfig `proxy-url`: it tunnels each
 * CONNECT to its target and remembers the targets asked for, so a test can assert that a client
 * went through it.
 *
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { connect } from "node:net";

/** A running proxy. */
export interface ConnectProxy {
  /** The proxy URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The `host:port` of every CONNECT seen, in order. */
  readonly connects: readonly string[];
  /** Stops the proxy and closes every tunnel. */
  close(): Promise<void>;
}

/** Starts a CONNECT proxy on 127.0.0.1 (a random port). */
export async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => {
    res.statusCode = 405;
    res.end("CONNECT only");
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    const target = req.url ?? "";
    connects.push(target);
    const [host, port] = [
      target.slice(0, target.lastIndexOf(":")),
      Number(target.slice(target.lastIndexOf(":") + 1)),
    ];
    const upstream = connect(port, host.replace(/^\[|\]$/g, ""), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    }
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
