/**
 * One helm call as both runners see it: a private call dir (see `call-dir.ts`), the redactor of
 * the call (the runner's secrets plus the values, values files and passwords met on the way), the
 * argv around a helm command (the kubeconfig file when the command needs a cluster, then the
 * isolation flags) and the call's registry config (`registry-config.ts`), written before the first
 * helm process starts. Values are written to a 0600 file, never put on argv. No process is started
 * here.
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpecError } from "../errors.js";
import type { ResolvedSpec } from "../spec/index.js";
import { readValuesFile } from "../spec/values.js";
import { type ChartPlan, chartPlan } from "./args.js";
import { closeCallDir, isolationFlags, openCallDir, writeCallFile } from "./call-dir.js";
import { Redactor } from "./redact.js";
import { type RegistryCredential, registryConfigDir, writeRegistryConfig } from "./registry-config.js";

/** The state of one call; {@link HelmCall.close} removes its dir. */
export class HelmCall {
  /** The call's private dir. */
  public readonly dir: string;
  /** Redacts the runner's secrets and those this call registered. */
  public readonly redactor: Redactor;
  private kubeconfigFile: string | undefined;
  private registryCredential: RegistryCredential | undefined;
  private registryConfigWritten = false;

  /**
   * @param kubeconfig - kubeconfig content, written to the call dir when a command needs it
   * @param redactor - the runner's secrets (copied: the call's own do not leak into the runner)
   * @param root - where the call dir is created @default os.tmpdir()
   */
  public constructor(
    private readonly kubeconfig: string | undefined,
    redactor: Redactor,
    root: string = tmpdir(),
  ) {
    this.dir = openCallDir(root);
    this.redactor = new Redactor().addAll(redactor);
  }

  /** The dir helm's `DOCKER_CONFIG` points at: the call's registry config, never the user's. */
  public get dockerConfigDir(): string {
    return registryConfigDir(this.dir);
  }

  /** Removes the call dir. */
  public close(): void {
    closeCallDir(this.dir);
  }

  /**
   * The complete argv after the binary: `args`, the kubeconfig file when `needsCluster`, then the
   * isolation flags.
   * @throws SpecError when the command needs a cluster and the runner has no kubeconfig
   */
  public argv(args: readonly string[], needsCluster: boolean): string[] {
    const full = [...args];
    if (needsCluster) {
      if (this.kubeconfig === undefined) {
        throw new SpecError(
          "kubeconfig",
          `kubeconfig is required for "helm ${args[0] ?? ""}": pass the kubeconfig option to HelmRunner`,
        );
      }
      this.kubeconfigFile ??= writeCallFile(this.dir, "kubeconfig", this.kubeconfig);
      full.push("--kubeconfig", this.kubeconfigFile);
    }
    full.push(...isolationFlags(this.dir));
    if (!this.registryConfigWritten) {
      writeRegistryConfig(this.dir, this.registryCredential);
      this.registryConfigWritten = true;
    }
    return full;
  }

  /**
   * The chart reference of `spec` and its setup steps; the repository password is registered as a
   * secret, an OCI registry's credentials go to the call's registry config.
   */
  public chart(spec: ResolvedSpec): ChartPlan {
    const plan = chartPlan(spec);
    for (const s of plan.secrets) this.redactor.add(s);
    if (plan.repository !== undefined) {
      // A secret repository URL: helm reads it from the call's (0600) repository config.
      const config = { apiVersion: "", generated: "0001-01-01T00:00:00Z", repositories: [plan.repository] };
      writeFileSync(join(this.dir, "repositories.yaml"), JSON.stringify(config), { mode: 0o600 });
    }
    this.registryCredential = plan.registryCredential;
    if (this.registryConfigWritten) writeRegistryConfig(this.dir, this.registryCredential);
    return plan;
  }

  /**
   * `-f` flags: the spec's value files in order, then its values (written to a 0600 file). The
   * values and the contents of every values file are registered as secrets.
   */
  public valuesArgs(spec: ResolvedSpec): string[] {
    const args: string[] = [];
    for (const [i, f] of spec.valueFiles.entries()) {
      this.redactor.addValues(readValuesFile(f, `valueFiles[${i}]`));
      args.push("-f", f);
    }
    this.redactor.addValues(spec.values);
    if (Object.keys(spec.values).length > 0) {
      args.push("-f", writeCallFile(this.dir, "values.json", JSON.stringify(spec.values)));
    }
    return args;
  }
}
