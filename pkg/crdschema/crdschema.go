// Package crdschema applies a CustomResourceDefinition's schema to objects as kube-apiserver
// does when it creates a custom resource: the status dropped when the CRD has a status
// subresource, the schema's defaults filled in, then the object's metadata, the OpenAPI
// schema, the list types and the CEL rules (x-kubernetes-validations) checked, every error
// reported. The simulator uses it for phalanx's own kinds (config/crd), so that what the
// API server would refuse to store is refused there too.
//
// It is built from the libraries kube-apiserver's own implementation
// (k8s.io/apiextensions-apiserver) is built from: k8s.io/kube-openapi's schema validator and
// k8s.io/apiserver's CEL environment and its adapter for OpenAPI schemas; the walk that
// applies them is phalanx's. hack/tools/crdcheck holds it to k8s.io/apiextensions-apiserver
// itself, error for error. Schema constructs phalanx's CRDs do not use (int-or-string,
// preserve-unknown-fields, embedded resources, allOf/anyOf/oneOf/not) are refused when a
// CRD is loaded rather than half applied.
package crdschema

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"
)

// Schema is one version of a CRD: what its objects are checked against.
type Schema struct {
	// GVK is the kind the schema describes.
	GVK schema.GroupVersionKind
	// Namespaced is the CRD's scope.
	Namespaced bool
	// statusSubresource makes create drop the status, as the API server does.
	statusSubresource bool
	root              *spec.Schema

	// The CEL rules are compiled on first use: compiling costs more than most runs need.
	rulesOnce sync.Once
	rules     *ruleNode
	rulesErr  error
}

// crdManifest is the part of a CustomResourceDefinition this package reads; the rest of
// the CRD is k8s.io/apiextensions-apiserver's business, which phalanx does not import.
type crdManifest struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name         string `json:"name"`
			Served       bool   `json:"served"`
			Subresources struct {
				Status *struct{} `json:"status"`
			} `json:"subresources"`
			Schema struct {
				OpenAPIV3Schema *spec.Schema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// Parse reads a CRD manifest and returns a Schema for each version it serves.
func Parse(data []byte) ([]*Schema, error) {
	var crd crdManifest
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, err
	}
	if crd.Kind != "CustomResourceDefinition" {
		return nil, fmt.Errorf("kind %q: not a CustomResourceDefinition", crd.Kind)
	}
	var out []*Schema
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		root := v.Schema.OpenAPIV3Schema
		if root == nil {
			return nil, fmt.Errorf("%s: no openAPIV3Schema", gvk)
		}
		if err := checkSupported(root, "openAPIV3Schema"); err != nil {
			return nil, fmt.Errorf("%s: %w", gvk, err)
		}
		out = append(out, &Schema{
			GVK:               gvk,
			Namespaced:        crd.Spec.Scope == "Namespaced",
			statusSubresource: v.Subresources.Status != nil,
			root:              root,
		})
	}
	return out, nil
}

// Set is the schemas of several CRDs, by kind.
type Set map[schema.GroupVersionKind]*Schema

// Load reads every *.yaml file of a folder that holds a CRD (other files are skipped).
func Load(fsys fs.FS) (Set, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	set := Set{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var head struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal(data, &head); err != nil || head.Kind != "CustomResourceDefinition" {
			continue
		}
		schemas, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(name), err)
		}
		for _, s := range schemas {
			set[s.GVK] = s
		}
	}
	return set, nil
}

// For returns the schema of an apiVersion and kind, nil when no CRD defines it.
func (s Set) For(apiVersion, kind string) *Schema {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil
	}
	return s[gv.WithKind(kind)]
}

// checkSupported refuses schema constructs Validate does not apply as the API server
// does, so that a CRD that starts using one fails its tests instead of being checked in
// part.
func checkSupported(s *spec.Schema, at string) error {
	for _, ext := range []string{"x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"} {
		if v, ok := s.Extensions.GetBool(ext); ok && v {
			return fmt.Errorf("%s: %s is not supported by pkg/crdschema", at, ext)
		}
	}
	switch {
	case len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil:
		return fmt.Errorf("%s: allOf, anyOf, oneOf and not are not supported by pkg/crdschema", at)
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema == nil:
		return fmt.Errorf("%s: additionalProperties without a schema is not supported by pkg/crdschema", at)
	case len(s.Type) > 1:
		return fmt.Errorf("%s: a list of types is not a structural schema", at)
	}
	for name, p := range s.Properties {
		if err := checkSupported(&p, at+".properties."+name); err != nil {
			return err
		}
	}
	if s.Items != nil {
		if s.Items.Schema == nil {
			return fmt.Errorf("%s.items: a list of item schemas is not a structural schema", at)
		}
		if err := checkSupported(s.Items.Schema, at+".items"); err != nil {
			return err
		}
	}
	if s.AdditionalProperties != nil {
		return checkSupported(s.AdditionalProperties.Schema, at+".additionalProperties")
	}
	return nil
}
