/**
 * Chart sources per output (constructs/chart-credentials.ts, helm-chart-proxy.ts): every field of
 * a repository or local chart source, for every output, either reaches what the output is made
 * from (the helm call of the render for Manifests and ClusterResourceSet, the synthesized objects
 * for HelmChartProxy) or is refused with a `SpecError` naming it: nothing is dropped. For the
 * HelmChartProxy, OCI credentials and a CA become Secrets it references (emitted, or the user's),
 * the password never in the proxy; what CAAPH v0.6.4 cannot carry is refused with the route that
 * works. No helm runs: the render outputs are checked at their helm call's plan (`chartPlan`).
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Testing } from "cdk8s";
import {
  CLUSTER_ADDON_OUTPUTS,
  ClusterAddon,
  type ClusterAddonProps,
} from "../../../constructs/cluster-addon.js";
import { SpecError } from "../../../core/errors.js";
import { chartPlan } from "../../../core/helm/args.js";
import { REPO_CHART_FIELDS } from "../../../core/spec/chart.js";
import { type PathChartSource, type RepoChartSource, validateSpec } from "../../../core/spec/index.js";
import type { KubeObject } from "../../../core/util/kube-object.js";
import { newChart, testChart } from "../../support/constructs.js";
import { runDocsExample } from "../../support/docs-example.js";

const dir = mkdtempSync(join(tmpdir(), "hh-chart-sources-"));
const CA_FILE = join(dir, "ca.pem");
writeFileSync(CA_FILE, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
const SELECTOR = { matchLabels: { cni: "bootstrap" } };
const BASES = {
  https: { repo: "https://charts.example.org", name: "cni", version: "1.2.3" },
  oci: { repo: "oci://registry.example.org:5000/charts", name: "cni", version: "1.2.3" },
};

/** A value of each chart-source field (with what it needs beside it); the compiler requires every field. */
const SAMPLES: {
  readonly [K in keyof Required<RepoChartSource> | keyof PathChartSource]: Record<string, unknown>;
} = {
  repo: { repo: "https://other.example.org" },
  name: { name: "other" },
  version: { version: "2.0.0" },
  username: { username: "robot", password: "s3cret-pw" },
  password: { username: "robot", password: "s3cret-pw" },
  caFile: { caFile: CA_FILE },
  insecureSkipTlsVerify: { insecureSkipTlsVerify: true },
  plainHttp: { plainHttp: true },
  secretRepo: { secretRepo: true },
  path: { path: testChart("workload") },
};

/** What an output is made from: the helm call's plan (render outputs) or the synthesized objects. */
function outcome(output: (typeof CLUSTER_ADDON_OUTPUTS)[number], chart: Record<string, unknown>): unknown {
  const props = {
    chart,
    output,
    ...(output === "Manifests" ? {} : { clusterSelector: SELECTOR }),
  } as unknown as ClusterAddonProps;
  if (output !== "HelmChartProxy") {
    const spec = validateSpec({ ...props, releaseName: "cni" });
    return chartPlan(spec);
  }
  const { chart: parent } = newChart();
  new ClusterAddon(parent, "cni", props);
  return Testing.synth(parent);
}

/** The SpecError field of `run`, or undefined when it succeeds. */
function refusedField(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (e) {
    if (e instanceof SpecError) return e.field;
    throw e;
  }
}

/** The objects of a HelmChartProxy add-on of `chart` with `props`. */
function proxyObjects(chart: Record<string, unknown>, props: Partial<ClusterAddonProps> = {}): KubeObject[] {
  const { chart: parent } = newChart();
  new ClusterAddon(parent, "cni", {
    chart: chart as unknown as RepoChartSource,
    output: "HelmChartProxy",
    clusterSelector: SELECTOR,
    carrierNamespace: "fleet",
    ...props,
  });
  return Testing.synth(parent) as KubeObject[];
}

const specOf = (o: KubeObject | undefined) => (o as { spec?: Record<string, unknown> } | undefined)?.spec;

describe("chart sources per output", () => {
  it("walks every chart-source field for every output: each reaches the output or is refused naming it", () => {
    assert.deepEqual(Object.keys(SAMPLES).sort(), [...REPO_CHART_FIELDS, "path"].sort());
    const seen: string[] = [];
    for (const [kind, base] of Object.entries(BASES)) {
      for (const [field, sample] of Object.entries(SAMPLES)) {
        for (const output of CLUSTER_ADDON_OUTPUTS) {
          const chart = field === "path" ? sample : { ...base, ...sample };
          const label = `${kind} ${field} ${output}`;
          const refused = refusedField(() => outcome(output, chart));
          if (refused !== undefined) {
            const named =
              field === "path"
                ? ["chart"]
                : [`chart.${field}`, ...Object.keys(sample).map((k) => `chart.${k}`)];
            assert.ok(named.includes(refused), `${label}: refused naming ${refused}`);
            seen.push(`${label}: refused`);
            continue;
          }
          const without = field === "path" ? { ...base } : base;
          assert.notDeepEqual(outcome(output, chart), outcome(output, without), `${label}: changes nothing`);
          seen.push(`${label}: reaches`);
        }
      }
    }
    const hcp = seen.filter((s) => s.includes("HelmChartProxy"));
    assert.deepEqual(hcp, [
      "https repo HelmChartProxy: reaches",
      "https name HelmChartProxy: reaches",
      "https version HelmChartProxy: reaches",
      "https username HelmChartProxy: refused",
      "https password HelmChartProxy: refused",
      "https caFile HelmChartProxy: refused",
      "https insecureSkipTlsVerify HelmChartProxy: refused",
      "https plainHttp HelmChartProxy: refused",
      "https secretRepo HelmChartProxy: refused",
      "https path HelmChartProxy: refused",
      "oci repo HelmChartProxy: reaches",
      "oci name HelmChartProxy: reaches",
      "oci version HelmChartProxy: reaches",
      "oci username HelmChartProxy: reaches",
      "oci password HelmChartProxy: reaches",
      "oci caFile HelmChartProxy: reaches",
      "oci insecureSkipTlsVerify HelmChartProxy: reaches",
      "oci plainHttp HelmChartProxy: refused",
      "oci secretRepo HelmChartProxy: refused",
      "oci path HelmChartProxy: refused",
    ]);
  });

  it("emits the OCI registry's credentials as a Secret the HelmChartProxy references, the password in no proxy field", () => {
    const [secret, hcp, ...rest] = proxyObjects({ ...BASES.oci, username: "robot", password: "s3cret-pw" });
    assert.deepEqual(rest, []);
    assert.deepEqual(
      [secret?.kind, secret?.metadata, (secret as { type?: string } | undefined)?.type],
      ["Secret", { name: "cni-registry-credentials", namespace: "fleet" }, "Opaque"],
    );
    const data = (secret as { data?: Record<string, string> } | undefined)?.data ?? {};
    assert.deepEqual(Object.keys(data), ["config.json"]);
    const config = JSON.parse(Buffer.from(data["config.json"] ?? "", "base64").toString("utf8"));
    assert.deepEqual(config, {
      auths: {
        "helm-handoff.invalid": {},
        "registry.example.org:5000": { auth: Buffer.from("robot:s3cret-pw").toString("base64") },
      },
    });
    assert.deepEqual(specOf(hcp)?.credentials, {
      secret: { name: "cni-registry-credentials" },
      key: "config.json",
    });
    const text = JSON.stringify(hcp);
    for (const secretText of ["s3cret-pw", Buffer.from("robot:s3cret-pw").toString("base64")]) {
      assert.equal(text.includes(secretText), false);
    }
  });

  it("references the user's own credentials and CA Secrets by name, key and namespace", () => {
    const [hcp, ...rest] = proxyObjects(BASES.oci, {
      credentialsSecret: { name: "registry-robot", key: "auths.json", namespace: "secrets" },
      caSecret: { name: "registry-ca" },
    });
    assert.deepEqual(rest, []);
    assert.deepEqual(specOf(hcp)?.credentials, {
      secret: { name: "registry-robot", namespace: "secrets" },
      key: "auths.json",
    });
    assert.deepEqual(specOf(hcp)?.tlsConfig, { caSecret: { name: "registry-ca" } });
    const [defaults] = proxyObjects(BASES.oci, { credentialsSecret: { name: "registry-robot" } });
    assert.deepEqual(specOf(defaults)?.credentials, {
      secret: { name: "registry-robot" },
      key: "config.json",
    });
  });

  it("emits chart.caFile as a Secret with ca.crt for spec.tlsConfig.caSecret, beside insecureSkipTLSVerify", () => {
    const [ca, hcp] = proxyObjects({ ...BASES.oci, caFile: CA_FILE, insecureSkipTlsVerify: true });
    assert.equal(ca?.metadata.name, "cni-ca");
    const data = (ca as { data?: Record<string, string> } | undefined)?.data ?? {};
    assert.equal(
      Buffer.from(data["ca.crt"] ?? "", "base64").toString("utf8"),
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    );
    assert.deepEqual(specOf(hcp)?.tlsConfig, { caSecret: { name: "cni-ca" }, insecureSkipTLSVerify: true });
  });

  /** The SpecError of a HelmChartProxy add-on, as field and message. */
  const proxyError = (chart: Record<string, unknown>, props: Partial<ClusterAddonProps> = {}) => {
    try {
      proxyObjects(chart, props);
    } catch (e) {
      assert.ok(e instanceof SpecError);
      return { field: e.field, message: e.message };
    }
    assert.fail("the add-on was built");
  };

  it("refuses an https:// repository's username and password, citing CAAPH's source and the routes that work", () => {
    assert.deepEqual(proxyError({ ...BASES.https, username: "robot", password: "s3cret-pw" }), {
      field: "chart.username",
      message:
        'chart.username and chart.password cannot reach CAAPH for "https://charts.example.org": CAAPH v0.6.4 has no field for an https:// repository\'s credentials (spec.credentials is read only by its OCI registry client, internal/helm_client.go); push the chart to an OCI registry (chart.repo "oci://…") and give its credentials, or use output "ClusterResourceSet", which renders at synth with them',
    });
  });

  it("refuses an https:// repository's CA and credentials Secret, which CAAPH applies only to OCI registries", () => {
    assert.deepEqual(proxyError({ ...BASES.https, caFile: CA_FILE }), {
      field: "chart.caFile",
      message:
        'chart.caFile cannot reach CAAPH for "https://charts.example.org": CAAPH v0.6.4 applies spec.tlsConfig only to its OCI registry client, not to an https:// chart repository (internal/helm_client.go); push the chart to an OCI registry (chart.repo "oci://…") served with that CA, or use output "ClusterResourceSet", which renders at synth with them',
    });
    assert.equal(proxyError(BASES.https, { credentialsSecret: { name: "x" } }).field, "credentialsSecret");
    assert.equal(proxyError(BASES.https, { caSecret: { name: "x" } }).field, "caSecret");
  });

  it("refuses chart.plainHttp, which CAAPH's registry client has no option for", () => {
    assert.deepEqual(proxyError({ ...BASES.oci, plainHttp: true }), {
      field: "chart.plainHttp",
      message:
        'chart.plainHttp has no counterpart in a HelmChartProxy: CAAPH v0.6.4 makes its OCI registry client without a plain-HTTP option (internal/helm_client.go, newDefaultRegistryClient); serve the registry over TLS (its CA in chart.caFile or the caSecret prop), or use output "ClusterResourceSet", which renders at synth',
    });
  });

  it("refuses a password and a credentials Secret together, and a Secret reference with another output", () => {
    assert.deepEqual(
      proxyError(
        { ...BASES.oci, username: "robot", password: "pw" },
        { credentialsSecret: { name: "robot" } },
      ),
      {
        field: "credentialsSecret",
        message:
          "credentialsSecret and chart.username and chart.password are both set: the HelmChartProxy references one Secret; give one of them",
      },
    );
    assert.deepEqual(
      proxyError({ ...BASES.oci, caFile: CA_FILE }, { caSecret: { name: "ca" } }).field,
      "caSecret",
    );
    assert.deepEqual(proxyError(BASES.oci, { credentialsSecret: { name: "Not_A_Name" } }), {
      field: "credentialsSecret.name",
      message:
        'credentialsSecret.name "Not_A_Name" is invalid: must be the name of a Secret in the management cluster (a lowercase DNS-1123 name)',
    });
    const { chart } = newChart();
    assert.throws(
      () =>
        new ClusterAddon(chart, "cni", {
          chart: { path: testChart("workload") },
          caSecret: { name: "ca" },
        }),
      {
        message:
          'caSecret only applies to output "HelmChartProxy" (CAAPH reads the Secret in the management cluster); output "Manifests" renders at synth: give the credentials or CA in chart instead',
      },
    );
  });

  it("the private registry example of docs/cdk8s.md synthesizes the two Secrets and a proxy without the password", async () => {
    const objects = await runDocsExample("### Private repositories and CAs", {
      REGISTRY: "oci://127.0.0.1:5000/charts",
      REGISTRY_PASSWORD: "s3cret-pw",
      REGISTRY_CA: CA_FILE,
    });
    assert.deepEqual(
      objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`),
      ["Secret default/flux-registry-credentials", "Secret default/flux-ca", "HelmChartProxy default/flux"],
    );
    const hcp = objects[2];
    assert.deepEqual(specOf(hcp)?.credentials, {
      secret: { name: "flux-registry-credentials" },
      key: "config.json",
    });
    assert.deepEqual(specOf(hcp)?.tlsConfig, { caSecret: { name: "flux-ca" } });
    assert.equal(JSON.stringify(hcp).includes("s3cret-pw"), false);
  });
});
