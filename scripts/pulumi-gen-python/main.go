// pulumi-gen-python writes the Python SDK of a Pulumi package the way `pulumi package add` has
// Python's language host write it, with Pulumi's own Python code generator (pkg/v3/codegen/python,
// the CLI's version): the schema (JSON) on stdin, the SDK's files (setup.py and the package
// directory) under the directory given as the one argument. Built by scripts/toolchain.sh; the test
// of docs/languages.md's Python program installs its output into the program's virtualenv, since
// the language host that would generate it for `pulumi package add` cannot be had here.
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
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pulumi-gen-python OUT_DIR < schema.json")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "pulumi-gen-python:", err)
		os.Exit(1)
	}
}

func run(out string, in io.Reader) error {
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
	// What `pulumi package add` sets (pkg/cmd/pulumi/packages) for every language.
	pkg.SupportPack = true
	files, err := pygen.GeneratePackage("pulumi-language-python", pkg, nil, noOtherPackages{})
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
