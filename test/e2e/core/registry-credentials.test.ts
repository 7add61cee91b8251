/**
 * OCI registry credentials stay inside the helm call, on the real helm v4 and the local registry
 * (behind a front that records the `Authorization` header of every request): a chart pulled with
 * a password is pulled with the call's own registry config, and no `docker-credential-*` helper on
 * PATH is called (none gets the password to store, none is asked for the user's); a chart pulled
 * without a password from a registry whose certificate is not checked (`insecureSkipTlsVerify`) or
 * over plain HTTP (`plainHttp`) gets none of the user's credentials from `~/.docker/config.json`,
 * `$DOCKER_CONFIG` or a keychain. Both runners: the async one (Pulumi, core API) and the
 * synchronous one (cdk8s).
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { HelmError } from "../../../core/errors.js";
import { HelmRunner, helmTemplateSync } from "../../../core/helm/index.js";
import { type ResolvedSpec, validateSpec } from "../../../core/spec/index.js";
import { toolchainBinDir } from "../../../core/util/paths.js";
import { generatePki } from "../../../local-cluster/control-plane/certs.js";
import { localChart, packageCharts } from "../../support/charts.js";
import {
  type RegistryFront,
  startRegistryFront,
  writeCredentialHelpers,
} from "../../support/registry-front.js";
import { type OciRegistry, startOciRegistry } from "../../support/repos.js";

const realHelm = join(toolchainBinDir(), "helm");
/** The credentials the chart spec gives. */
const GIVEN = { username: "alice", password: "given-pass-0417" };
/** The user's own credentials, in every place helm could find them. */
const HOME_CREDS = { username: "bob", password: "home-pass-2718" };
const ENV_CREDS = { username: "carol", password: "env-pass-3141" };
const KEYCHAIN_CREDS = { username: "dave", secret: "keychain-pass-1618" };

const basic = (c: { username: string; password: string }) =>
  `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}`;

/** A Docker config file holding `creds` for `host`. */
function writeDockerConfig(dir: string, host: string, creds: { username: string; password: string }): void {
  mkdirSync(dir, { recursive: true });
  const auth = Buffer.from(`${creds.username}:${creds.password}`).toString("base64");
  writeFileSync(join(dir, "config.json"), JSON.stringify({ auths: { [host]: { auth } } }));
}

/** The two runners, rendering `spec` with `helm template` (which pulls the chart). */
const RUNNERS: ReadonlyArray<{
  readonly name: string;
  readonly render: (spec: ResolvedSpec) => Promise<string>;
}> = [
  {
    name: "the async runner",
    render: (spec) =>
      new HelmRunner({ helmBinary: realHelm, helmHome: join(root, "helm-home") }).template(spec),
  },
  { name: "the synchronous runner", render: async (spec) => helmTemplateSync(realHelm, spec) },
];

let root = "";

describe("OCI registry credentials never leave the helm call", { timeout: 300_000 }, () => {
  let registry: OciRegistry;
  let authFront: RegistryFront;
  let tlsFront: RegistryFront;
  let plainFront: RegistryFront;
  let caFile: string;
  let helperLog: string;
  const savedEnv = { ...process.env };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "hh-registry-creds-test-"));
    const [reg, pki, packaged] = await Promise.all([
      startOciRegistry(),
      generatePki(join(root, "pki"), "registry"),
      packageCharts({ charts: ["widget"] }),
    ]);
    registry = reg;
    await registry.push(packaged.path("widget"));
    await packaged.remove();
    caFile = pki.caCert;
    const tls = { cert: pki.servingCert, key: pki.servingKey };
    [authFront, tlsFront, plainFront] = await Promise.all([
      startRegistryFront({ backend: registry.host, tls, credentials: GIVEN }),
      startRegistryFront({ backend: registry.host, tls, credentials: HOME_CREDS }),
      startRegistryFront({ backend: registry.host, credentials: HOME_CREDS }),
    ]);
    // The user's own credentials for every front: in ~/.docker, in $DOCKER_CONFIG and in a keychain
    // (fake credential helpers on PATH, which log every call).
    const home = join(root, "home");
    for (const front of [authFront, tlsFront, plainFront]) {
      writeDockerConfig(join(home, ".docker"), front.host, HOME_CREDS);
      writeDockerConfig(join(root, "docker-config"), front.host, ENV_CREDS);
    }
    helperLog = join(root, "helpers.log");
    await writeCredentialHelpers(join(root, "bin"), helperLog, KEYCHAIN_CREDS);
    process.env.HOME = home;
    process.env.DOCKER_CONFIG = join(root, "docker-config");
    process.env.PATH = `${join(root, "bin")}:${process.env.PATH ?? ""}`;
  });

  after(async () => {
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
    await Promise.allSettled([authFront?.close(), tlsFront?.close(), plainFront?.close(), registry?.close()]);
    rmSync(root, { recursive: true, force: true });
  });

  /** What the fake credential helpers were asked so far. */
  const helperCalls = (): string => (existsSync(helperLog) ? readFileSync(helperLog, "utf8") : "");

  for (const runner of RUNNERS) {
    test(`${runner.name} pulls a chart with a password from its own registry config, and no credential helper is called`, async () => {
      const before = authFront.authorizations().length;
      const spec = validateSpec({
        chart: { repo: authFront.url, name: "widget", version: "0.1.0", ...GIVEN, caFile },
        releaseName: "creds",
      });
      const manifest = await runner.render(spec);
      assert.match(manifest, /name: creds-widget/);
      const sent = authFront.authorizations().slice(before);
      assert.ok(sent.includes(basic(GIVEN)), "the given credentials were sent");
      assert.deepEqual(
        sent.filter((a) => a !== undefined && a !== basic(GIVEN)),
        [],
        "no other credentials were sent",
      );
      assert.equal(helperCalls(), "", "no docker-credential-* helper was called");
    });

    for (const source of [
      {
        what: "a registry whose certificate is not checked",
        front: () => tlsFront,
        flag: { insecureSkipTlsVerify: true },
      },
      { what: "a plain HTTP registry", front: () => plainFront, flag: { plainHttp: true } },
    ]) {
      test(`${runner.name} sends none of the user's own registry credentials to ${source.what}`, async () => {
        const front = source.front();
        const before = front.authorizations().length;
        const spec = validateSpec({
          chart: { repo: front.url, name: "widget", version: "0.1.0", ...source.flag },
          releaseName: "ambient",
        });
        const error = await runner.render(spec).then(
          () => assert.fail("the pull succeeded, so helm sent credentials the spec does not give"),
          (e: unknown) => e,
        );
        assert.ok(error instanceof HelmError, `expected a HelmError, got ${String(error)}`);
        const scheme = front === plainFront ? "http" : "https";
        assert.equal(
          error.stderr.trim(),
          `Error: failed to perform "FetchReference" on source: GET "${scheme}://${front.host}/v2/charts/widget/manifests/0.1.0": basic credential not found`,
        );
        const sent = front.authorizations().slice(before);
        assert.ok(sent.length > 0, "helm reached the registry");
        assert.deepEqual(
          sent.filter((a) => a !== undefined),
          [],
          "no Authorization header was sent",
        );
        assert.equal(helperCalls(), "", "no docker-credential-* helper was called");
      });
    }
  }

  test("a local chart is rendered as before with the same environment", async () => {
    const spec = validateSpec({ chart: { path: localChart("widget") }, releaseName: "local" });
    for (const runner of RUNNERS) assert.match(await runner.render(spec), /name: local-widget/);
    assert.equal(helperCalls(), "");
  });
});
