// A main for pulumi-resource-kubernetes, built by scripts/toolchain.sh.
//
// Upstream's main embeds schema-embed.json and terraform-mapping-embed.json,
// which `go generate` writes and the published module does not contain. The
// toolchain script copies the module's schema.json and terraform-mapping.json
// under those names next to this file, then builds it in a wrapper module.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}
