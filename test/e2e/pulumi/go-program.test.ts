/**
 * helm-handoff as a Pulumi package, from a Go program through the real `pulumi` CLI: a project laid
 * out the way `pulumi package add ./node_modules/helm-handoff` lays out a Go program (the package
 * under `packages:` in Pulumi.yaml, the SDK Pulumi's Go generator makes from its schema under
 * `sdks/`, a `replace` line in go.mod), after installing the `npm pack` tarball. Go's language host
 * builds and runs the program; the engine runs the package's provider. The host is the last one the
 * Go module proxy serves (from `github.com/pulumi/pulumi/sdk/v3` v3.62.0, `scripts/toolchain.sh`):
 * newer hosts cannot be had here, and this one runs a program built with the CLI's Go SDK.
 * ApplyOnce installs revision 1, ignores a values change and keeps the release on destroy, with the
 * kubeconfig and the values secret in the state; Reconcile upgrades and uninstalls: the same checks
 * as the YAML test's (support/package-program.ts).
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { chartPath } from "../../support/charts.js";
import { clusterSuite } from "../../support/cluster.js";
import { GO_BUILD_ENV, writeGoModule } from "../../support/go-program.js";
import {
  checkApplyOnceHandsOff,
  checkReconcileUpgradesAndUninstalls,
  configureAddonStack,
  disposeAfter,
  installedPackageSchema,
} from "../../support/package-program.js";
import { createProject, pulumiCli } from "../../support/project.js";

const NAMESPACE = "cli-go";

/** The add-on from a Go program, with the release name, mode and strategy from config. */
const GO_PROGRAM = `package main

import (
	helmhandoff "example.com/pulumi-helm-handoff/sdk/go/helmhandoff"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		strategy := helmhandoff.Strategy(cfg.Require("strategy"))
		addon, err := helmhandoff.NewClusterAddon(ctx, "addon", &helmhandoff.ClusterAddonArgs{
			Kubeconfig:      cfg.RequireSecret("kubeconfig"),
			Chart:           &helmhandoff.ChartArgs{Path: pulumi.String("./charts/schema")},
			ReleaseName:     pulumi.StringRef(cfg.Require("releaseName")),
			Namespace:       pulumi.String("${NAMESPACE}"),
			CreateNamespace: pulumi.BoolRef(true),
			Strategy:        &strategy,
			Values:          pulumi.Map{"replicas": pulumi.Int(1), "mode": pulumi.String(cfg.Require("mode"))},
		})
		if err != nil {
			return err
		}
		ctx.Export("handoff", addon.Handoff)
		ctx.Export("status", addon.Status)
		return nil
	})
}
`;

describe("helm-handoff as a Pulumi package, from a Go program through the CLI", {
  timeout: 1_200_000,
}, () => {
  const suite = clusterSuite({ name: "cli-go" });

  /** A Go project using the installed package, configured for `releaseName` and `strategy`. */
  async function goProject(name: string, releaseName: string, strategy: string) {
    const p = await createProject({
      name,
      files: {
        "Pulumi.yaml": `name: hh-${name}\nruntime: go\npackages:\n  helm-handoff: ./node_modules/helm-handoff\n`,
        "main.go": GO_PROGRAM,
      },
    });
    suite.keep(p);
    await cp(chartPath("schema"), join(p.dir, "charts", "schema"), { recursive: true });
    const cli = await pulumiCli(p.dir, GO_BUILD_ENV);
    try {
      await writeGoModule(
        p.dir,
        await installedPackageSchema(p.dir),
        (await cli.run(["version"])).stdout.trim(),
      );
      await cli.run(["config", "set", "--secret", "kubeconfig"], { inputFile: suite.cluster.kubeconfigPath });
    } catch (err) {
      await cli.dispose();
      throw err;
    }
    return configureAddonStack(cli, releaseName, strategy);
  }

  test("an ApplyOnce add-on from a Go program installs once, ignores a values change and keeps the release on destroy", async () => {
    const cli = await goProject("go-apply-once", "go-once", "ApplyOnce");
    await disposeAfter(cli, () => checkApplyOnceHandsOff(cli, suite.cluster, "go-once", NAMESPACE));
  });

  test("a Reconcile add-on from a Go program upgrades on a values change and is uninstalled on destroy", async () => {
    const cli = await goProject("go-reconcile", "go-reconcile", "Reconcile");
    await disposeAfter(cli, () =>
      checkReconcileUpgradesAndUninstalls(cli, suite.cluster, "go-reconcile", NAMESPACE),
    );
  });
});
