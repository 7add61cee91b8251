// pulumi-gen-sdk writes the SDK of a Pulumi package in one language the way `pulumi package add`
// has that language's host write it, with Pulumi's own code generators at the CLI's version
// (pkg/v3/codegen/go, pkg/v3/codegen/python): the language as the first argument, the schema
// (JSON) on stdin, the SDK's files under the directory given as the second argument. Built by
// scripts/toolchain.sh; the tests of docs/languages.md's Go and Python programs use its output,
// since the language hosts that would generate it for `pulumi package add` cannot be had here.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const usage = "usage: pulumi-gen-sdk go|python OUT_DIR < schema.json"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "pulumi-gen-sdk:", err)
		os.Exit(1)
	}
}

func run(language, out string, in io.Reader) error {
	var spec schema.PackageSpec
	if err := json.NewDecoder(in).Decode(&spec); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, noOtherPackages{}, schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("bind schema: %w", err)
	}
	if diags.HasErrors() {
		return fmt.Errorf("bind schema: %w", diags)
	}
	// What `pulumi package add` sets (pkg/cmd/pulumi/packages) for every language: the SDK is a
	// package of its own.
	pkg.SupportPack = true
	var files map[string][]byte
	switch language {
	case "go":
		files, err = gogen.GeneratePackage("pulumi-gen-sdk", pkg, nil)
	case "python":
		files, err = pygen.GeneratePackage("pulumi-language-python", pkg, nil, noOtherPackages{})
	default:
		return fmt.Errorf("unknown language %q (%s)", language, usage)
	}
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	for name, data := range files {
		path := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// noOtherPackages is the schema loader: helm-handoff's schema refers to no other package.
type noOtherPackages struct{}

func (noOtherPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, errors.New("unexpected reference to package " + name)
}

func (noOtherPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errors.New("unexpected reference to package " + d.Name)
}

func (noOtherPackages) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, errors.New("unexpected reference to package " + name)
}

func (noOtherPackages) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, errors.New("unexpected reference to package " + d.Name)
}
