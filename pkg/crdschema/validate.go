package crdschema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// Admit does to obj what kube-apiserver does to a custom resource it is asked to create:
// drops the status when the CRD has a status subresource, fills in the schema's defaults
// (and drops nulls where the schema allows none), then validates the metadata, the schema,
// the list types and, when none of those errors blocks them, the CEL rules. obj is a JSON
// object as k8s.io/apimachinery/pkg/util/json decodes it (integers as int64) and is changed
// in place; the errors are all that were found, with the API server's paths and types.
func (s *Schema) Admit(obj map[string]any) field.ErrorList {
	if s.statusSubresource {
		delete(obj, "status")
	}
	applyDefaults(obj, s.root)
	var errs field.ErrorList
	u := &unstructured.Unstructured{Object: obj}
	errs = append(errs, validation.ValidateObjectMetaAccessor(u, s.Namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	res := validate.NewSchemaValidator(s.root, nil, "", strfmt.Default).Validate(obj)
	schemaErrs := openAPIErrors(res)
	// kube-openapi's order follows map iteration; the simulator's output must repeat.
	sort.SliceStable(schemaErrs, func(i, j int) bool { return schemaErrs[i].Field < schemaErrs[j].Field })
	errs = append(errs, schemaErrs...)
	errs = append(errs, listTypeErrors(obj, s.root, nil)...)
	if blocking(errs) {
		return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	return append(errs, s.ruleErrors(obj)...)
}

// applyDefaults fills in the schema's defaults where a field is missing (or null and not
// nullable), and drops the nulls left where the schema allows none, as the API server does
// while decoding a custom resource.
func applyDefaults(x any, s *spec.Schema) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, prop := range s.Properties {
			if prop.Default == nil {
				continue
			}
			if v, found := x[k]; !found || v == nil && !prop.Nullable {
				x[k] = runtime.DeepCopyJSONValue(prop.Default)
			}
		}
		for k, v := range x {
			prop, known := s.Properties[k]
			child := &prop
			if !known {
				if s.AdditionalProperties == nil {
					continue
				}
				child = s.AdditionalProperties.Schema
			}
			if v == nil && !child.Nullable {
				if child.Default != nil {
					x[k] = runtime.DeepCopyJSONValue(child.Default)
				} else {
					delete(x, k)
					continue
				}
			}
			applyDefaults(x[k], child)
		}
	case []any:
		if s.Items == nil {
			return
		}
		for i := range x {
			if x[i] == nil && !s.Items.Schema.Nullable && s.Items.Schema.Default != nil {
				x[i] = runtime.DeepCopyJSONValue(s.Items.Schema.Default)
			}
			applyDefaults(x[i], s.Items.Schema)
		}
	}
}

// openAPIErrors turns kube-openapi's result into field errors of the types the API server
// reports them with.
func openAPIErrors(res *validate.Result) field.ErrorList {
	var errs field.ErrorList
	for _, err := range res.Errors {
		ve, ok := err.(*openapierrors.Validation)
		if !ok {
			errs = append(errs, field.Invalid(nil, "", err.Error()))
			continue
		}
		var path *field.Path
		if ve.Name != "" && ve.Name != "." {
			path = path.Child(strings.TrimPrefix(ve.Name, "."))
		}
		value := ve.Value
		if value == nil {
			value = ""
		}
		switch ve.Code() {
		case openapierrors.RequiredFailCode:
			errs = append(errs, field.Required(path, ""))
		case openapierrors.EnumFailCode:
			var values []string
			for _, v := range ve.Values {
				if s, ok := v.(string); ok {
					values = append(values, s)
				} else {
					b, _ := json.Marshal(v)
					values = append(values, string(b))
				}
			}
			errs = append(errs, field.NotSupported(path, ve.Value, values))
		case openapierrors.TooLongFailCode:
			errs = append(errs, field.TooLong(path, "", int(asInt64(ve.Valid))))
		case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
			errs = append(errs, field.TooMany(path, int(asInt64(ve.Value)), int(asInt64(ve.Valid))))
		case openapierrors.InvalidTypeCode:
			errs = append(errs, field.TypeInvalid(path, value, ve.Error()))
		default:
			errs = append(errs, field.Invalid(path, value, ve.Error()))
		}
	}
	return errs
}

func asInt64(v any) int64 {
	if i, ok := v.(int64); ok {
		return i
	}
	return -1
}

// blocking reports errors after which the API server does not run the CEL rules: the rules
// are typed by the schema and would misread a value of the wrong shape.
func blocking(errs field.ErrorList) bool {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// listTypeErrors checks the x-kubernetes-list-type invariants: no item of a set twice, no
// key of a map twice.
func listTypeErrors(x any, s *spec.Schema, path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			v := x[k]
			if prop, ok := s.Properties[k]; ok {
				errs = append(errs, listTypeErrors(v, &prop, path.Child(k))...)
			} else if s.AdditionalProperties != nil {
				errs = append(errs, listTypeErrors(v, s.AdditionalProperties.Schema, path.Key(k))...)
			}
		}
	case []any:
		listType, _ := s.Extensions.GetString("x-kubernetes-list-type")
		keys, _ := s.Extensions.GetStringSlice("x-kubernetes-list-map-keys")
		switch listType {
		case "set":
			errs = append(errs, duplicates(path, x, func(item any) any { return item })...)
		case "map":
			errs = append(errs, mapDuplicates(path, x, keys)...)
		}
		if s.Items != nil {
			for i, item := range x {
				errs = append(errs, listTypeErrors(item, s.Items.Schema, path.Index(i))...)
			}
		}
	}
	return errs
}

// duplicates reports, once for each value of key(item) that repeats, the item where it
// first repeats.
func duplicates(path *field.Path, items []any, key func(any) any) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]int{}
	for i, item := range items {
		b, _ := json.Marshal(key(item))
		seen[string(b)]++
		if seen[string(b)] == 2 {
			errs = append(errs, field.Duplicate(path.Index(i), key(item)))
		}
	}
	return errs
}

// mapDuplicates checks a list-type map: objects only, no key twice (a missing key field
// counts as one value of its own).
func mapDuplicates(path *field.Path, items []any, keys []string) field.ErrorList {
	for i, item := range items {
		if _, ok := item.(map[string]any); item != nil && !ok {
			return field.ErrorList{field.Invalid(path.Index(i), item, "must be an object for an array of list-type map")}
		}
	}
	return duplicates(path, items, func(item any) any {
		m, _ := item.(map[string]any)
		key := map[string]any{}
		for _, k := range keys {
			if v, ok := m[k]; ok {
				key[k] = v
			}
		}
		return key
	})
}

// String names the schema in messages.
func (s *Schema) String() string { return fmt.Sprintf("%s %s", s.GVK.GroupVersion(), s.GVK.Kind) }
