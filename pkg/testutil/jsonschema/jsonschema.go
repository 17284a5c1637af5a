// Package jsonschema checks JSON documents against the JSON Schemas of docs/ (the
// contracts of -o json), for tests.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// Schema is a JSON Schema read from a file.
type Schema struct {
	path   string
	schema *spec.Schema
}

// Load reads a JSON Schema file, its local references inlined.
func Load(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defs, _ := doc["definitions"].(map[string]any)
	resolved, err := resolveRefs(doc, defs, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out, err := json.Marshal(resolved)
	if err != nil {
		return nil, err
	}
	s := &spec.Schema{}
	if err := json.Unmarshal(out, s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Schema{path: path, schema: s}, nil
}

// Validate checks a JSON document against the schema.
func (s *Schema) Validate(data []byte) error {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	if err := validate.AgainstSchema(s.schema, doc, strfmt.Default); err != nil {
		return fmt.Errorf("does not follow %s: %w", s.path, err)
	}
	return nil
}

// resolveRefs inlines the schema's local references ("#/definitions/x"): the validator
// takes a schema without them. The file keeps them, for readers and other validators.
func resolveRefs(v any, defs map[string]any, depth int) (any, error) {
	if depth > 32 {
		return nil, fmt.Errorf("references nest too deep")
	}
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		if ref, ok := x["$ref"].(string); ok {
			name, ok := strings.CutPrefix(ref, "#/definitions/")
			if !ok || defs[name] == nil {
				return nil, fmt.Errorf("unresolved reference %q", ref)
			}
			target, err := resolveRefs(defs[name], defs, depth+1)
			if err != nil {
				return nil, err
			}
			for k, v := range target.(map[string]any) {
				out[k] = v
			}
		}
		for k, v := range x {
			if k == "$ref" || k == "definitions" || k == "$schema" || k == "$id" {
				continue
			}
			r, err := resolveRefs(v, defs, depth+1)
			if err != nil {
				return nil, err
			}
			if _, set := out[k]; !set || k == "description" {
				out[k] = r
			}
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := resolveRefs(e, defs, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}
