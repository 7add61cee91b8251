/**
 * Every process a local cluster starts listens on loopback only, with workloads (kwok, the
 * controller-manager, the scheduler) and with Argo CD (its application-controller and repo-server
 * with their metrics, and Redis), read from the kernel's socket tables (/proc), not from the flags;
 * and Redis answers only with the password Argo CD gets. Linux only (it reads /proc).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { Socket } from "node:net";
import { describe, test } from "node:test";
import { clusterSuite } from "../../support/cluster.js";

/** `a.b.c.d` or an IPv6 address (hex groups) of a /proc/net/tcp{,6} address field. */
function address(hex: string): string {
  const bytes = Buffer.from(hex, "hex");
  // The kernel prints each 32-bit word in host (little-endian) order.
  for (let i = 0; i < bytes.length; i += 4) bytes.subarray(i, i + 4).reverse();
  if (bytes.length === 4) return [...bytes].join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(":");
}

const LOOPBACK = new Set(["127.0.0.1", "0:0:0:0:0:0:0:1"]);

/** The TCP addresses (`ADDRESS:PORT`) process `pid` listens on. */
function listening(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1] !== undefined) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const found: string[] = [];
  for (const table of ["tcp", "tcp6"]) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      const [local, state, inode] = [f[1], f[3], f[9]];
      if (local === undefined || state !== "0A" || inode === undefined || !inodes.has(inode)) continue;
      const [ip = "", port = ""] = local.split(":");
      found.push(`${address(ip)}:${Number.parseInt(port, 16)}`);
    }
  }
  return found;
}

/** Redis's first answer to PING on `port`. */
function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    socket.setTimeout(5_000, () => reject(new Error("no answer")));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString("utf8").trim());
    });
    socket.once("error", reject);
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
  });
}

describe("a local cluster with workloads and Argo CD", { timeout: 600_000 }, () => {
  const suite = clusterSuite({ name: "loopback", workloads: true, gitops: "argocd" });

  test("every process it starts listens on loopback only", () => {
    const processes = suite.cluster.processes();
    const names = processes.map((p) => p.name);
    for (const want of [
      "kube-apiserver",
      "kwok",
      "redis",
      "argocd-repo-server",
      "argocd-application-controller",
    ]) {
      assert.ok(names.includes(want), `${want} runs: ${names.join(", ")}`);
    }
    const exposed = processes.flatMap((p) =>
      listening(p.pid)
        .filter((a) => !LOOPBACK.has(a.slice(0, a.lastIndexOf(":"))))
        .map((a) => `${p.name} on ${a}`),
    );
    assert.deepEqual(exposed, []);
  });

  test("Redis refuses a client without the password", async () => {
    const redis = suite.cluster.processes().find((p) => p.name === "redis");
    assert.ok(redis);
    const [port] = listening(redis.pid).map((a) => Number(a.slice(a.lastIndexOf(":") + 1)));
    assert.ok(port);
    assert.match(await ping(port), /^-NOAUTH Authentication required\.?$/);
  });
});
