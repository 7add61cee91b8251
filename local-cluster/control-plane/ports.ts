/**
 * Free loopback ports for the local-cluster daemons: never the same port twice in one process,
 * and a way to tell from a daemon's log that it lost a race for its port.
 *
 * @module
 */
import { createServer } from "node:net";

/** Ports already handed out by this process, so that two clusters started at once never share one. */
const handedOut = new Set<number>();

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: the kernel picks it (bind to port 0), then the
 * socket is released. Another process may still take it before the daemon binds it, so callers retry
 * a daemon that fails with "address already in use" (see {@link isAddressInUse}).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await bindAndRelease();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("could not find a free TCP port on 127.0.0.1");
}

/** Whether a daemon's log says it could not listen because its port was taken. */
export function isAddressInUse(log: string): boolean {
  return /address already in use/i.test(log);
}

function bindAndRelease(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("bind returned no port"))));
    });
  });
}
