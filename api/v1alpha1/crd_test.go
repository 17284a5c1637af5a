package v1alpha1

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// crdFile is the generated CRD, relative to this package.
const crdFile = "../../config/crd/scheduling.phalanx.dev_podgroups.yaml"

// The CRD is decoded into just the fields the tests read, so that this package does not
// depend on k8s.io/apiextensions-apiserver.
type crd struct {
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Kind       string   `json:"kind"`
			ListKind   string   `json:"listKind"`
			Plural     string   `json:"plural"`
			ShortNames []string `json:"shortNames"`
			Categories []string `json:"categories"`
		} `json:"names"`
		Versions []struct {
			Name                     string         `json:"name"`
			Served                   bool           `json:"served"`
			Storage                  bool           `json:"storage"`
			Subresources             map[string]any `json:"subresources"`
			AdditionalPrinterColumns []column       `json:"additionalPrinterColumns"`
			Schema                   struct {
				OpenAPIV3Schema jsonSchema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

type column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	JSONPath string `json:"jsonPath"`
}

type jsonSchema struct {
	Properties  map[string]jsonSchema `json:"properties"`
	Items       *jsonSchema           `json:"items"`
	Enum        []string              `json:"enum"`
	Minimum     *float64              `json:"minimum"`
	MaxItems    *int                  `json:"maxItems"`
	Default     any                   `json:"default"`
	Validations []struct {
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"x-kubernetes-validations"`
}

// at follows a dotted path of property names ("[]" for list items) and fails the test if the
// schema does not have it.
func (s jsonSchema) at(t *testing.T, path string) jsonSchema {
	t.Helper()
	for _, name := range strings.Split(path, ".") {
		if name == "[]" {
			if s.Items == nil {
				t.Fatalf("CRD schema: %s has no items", path)
			}
			s = *s.Items
			continue
		}
		next, ok := s.Properties[name]
		if !ok {
			t.Fatalf("CRD schema: no %s (at %s); run hack/update-codegen.sh", path, name)
		}
		s = next
	}
	return s
}

func loadCRD(t *testing.T) crd {
	t.Helper()
	data, err := os.ReadFile(crdFile)
	if err != nil {
		t.Fatal(err)
	}
	var c crd
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", crdFile, err)
	}
	return c
}

// shortNamesTaken are the short names other schedulers' PodGroup CRDs use (Volcano,
// KAI-Scheduler, scheduler-plugins' coscheduling): `kubectl get pg` must not be
// ambiguous where one of them is installed beside phalanx.
var shortNamesTaken = []string{"pg", "pgs", "podgroup-v1beta1"}

func TestCRDShape(t *testing.T) {
	c := loadCRD(t)
	if c.Spec.Group != GroupName || c.Spec.Scope != "Namespaced" || c.Spec.Names.Kind != "PodGroup" ||
		c.Spec.Names.ListKind != "PodGroupList" || c.Spec.Names.Plural != "podgroups" ||
		!slices.Equal(c.Spec.Names.ShortNames, []string{"phxpg"}) || !slices.Equal(c.Spec.Names.Categories, []string{"phalanx"}) {
		t.Errorf("CRD names = group %q, scope %q, %+v", c.Spec.Group, c.Spec.Scope, c.Spec.Names)
	}
	for _, n := range c.Spec.Names.ShortNames {
		if slices.Contains(shortNamesTaken, n) {
			t.Errorf("short name %q is another scheduler's", n)
		}
	}
	if len(c.Spec.Versions) != 1 {
		t.Fatalf("CRD has %d versions, want 1", len(c.Spec.Versions))
	}
	v := c.Spec.Versions[0]
	if v.Name != SchemeGroupVersion.Version || !v.Served || !v.Storage {
		t.Errorf("CRD version %q served=%v storage=%v, want %q served and stored", v.Name, v.Served, v.Storage, SchemeGroupVersion.Version)
	}
	if _, ok := v.Subresources["status"]; !ok {
		t.Errorf("CRD has no status subresource: %v", v.Subresources)
	}
	wantColumns := []column{
		{"Policy", "string", ".spec.schedulingPolicy"},
		{"MinCount", "integer", ".spec.schedulingPolicy.gang.minCount"},
		{"Priority", "integer", ".spec.priority"},
		{"Phase", "string", ".status.phase"},
		{"Age", "date", ".metadata.creationTimestamp"},
	}
	if !slices.Equal(v.AdditionalPrinterColumns, wantColumns) {
		t.Errorf("printer columns = %+v, want %+v", v.AdditionalPrinterColumns, wantColumns)
	}
}

// TestCRDSchemaMatchesTypes catches a CRD not regenerated after a type changed: every JSON
// field of this package's types must be in the schema, and the schema must have no other.
func TestCRDSchemaMatchesTypes(t *testing.T) {
	root := loadCRD(t).Spec.Versions[0].Schema.OpenAPIV3Schema
	compareSchema(t, "PodGroup", reflect.TypeFor[PodGroup](), root)
}

func compareSchema(t *testing.T, path string, typ reflect.Type, s jsonSchema) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch {
	case typ.Kind() == reflect.Slice:
		if s.Items == nil {
			t.Errorf("CRD schema: %s is a list in Go but has no items", path)
			return
		}
		compareSchema(t, path+"[]", typ.Elem(), *s.Items)
	case typ.Kind() == reflect.Struct && typ.PkgPath() == reflect.TypeFor[PodGroup]().PkgPath():
		fields := jsonFields(typ)
		for name, ft := range fields {
			prop, ok := s.Properties[name]
			if !ok {
				t.Errorf("CRD schema: %s.%s is in Go but not in the CRD; run hack/update-codegen.sh", path, name)
				continue
			}
			compareSchema(t, path+"."+name, ft, prop)
		}
		for name := range s.Properties {
			if _, ok := fields[name]; !ok {
				t.Errorf("CRD schema: %s.%s is in the CRD but not in Go; run hack/update-codegen.sh", path, name)
			}
		}
	}
	// Other types (metav1.ObjectMeta, metav1.Condition, strings, numbers) are upstream's.
}

// jsonFields maps the JSON names of a struct's fields to their types, flattening inline
// embedded structs as encoding/json does.
func jsonFields(typ reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for f := range typ.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "" && f.Anonymous && strings.Contains(opts, "inline"):
			for n, t := range jsonFields(f.Type) {
				fields[n] = t
			}
		default:
			fields[name] = f.Type
		}
	}
	return fields
}

// TestCRDRules checks that the CRD enforces the rules ValidatePodGroup does, with the same
// messages.
func TestCRDRules(t *testing.T) {
	spec := loadCRD(t).Spec.Versions[0].Schema.OpenAPIV3Schema.at(t, "spec")
	hasRule := func(path, message string) {
		t.Helper()
		s := spec
		if path != "" {
			s = spec.at(t, path)
		}
		for _, v := range s.Validations {
			if v.Message == message {
				return
			}
		}
		t.Errorf("CRD schema: spec.%s has no rule with message %q", path, message)
	}
	hasRule("schedulingPolicy", msgOnePolicy)
	hasRule("disruptionMode", msgOneDisruption)
	hasRule("", msgAllNeedsGang)
	hasRule("schedulingConstraints", msgRequiredOrdered)

	if m := spec.at(t, "schedulingPolicy.gang.minCount").Minimum; m == nil || *m != 1 {
		t.Errorf("CRD schema: minCount minimum = %v, want 1", m)
	}
	if n := spec.at(t, "schedulingConstraints.topology").MaxItems; n == nil || *n != MaxTopologyLevels {
		t.Errorf("CRD schema: topology maxItems = %v, want %d", n, MaxTopologyLevels)
	}
	enums := map[string][]string{
		"schedulingConstraints.topology.[].mode": {string(TopologyModeRequired), string(TopologyModePreferred)},
		"preemptionPolicy":                       {"PreemptLowerPriority", "Never"},
	}
	for path, want := range enums {
		if got := spec.at(t, path).Enum; !slices.Equal(got, want) {
			t.Errorf("CRD schema: spec.%s enum = %q, want %q", path, got, want)
		}
	}
	if d := spec.at(t, "disruptionMode").Default; !reflect.DeepEqual(d, map[string]any{"single": map[string]any{}}) {
		t.Errorf("CRD schema: disruptionMode default = %v, want {single: {}}", d)
	}
	if d := spec.at(t, "schedulingConstraints.topology.[].mode").Default; d != string(TopologyModeRequired) {
		t.Errorf("CRD schema: topology mode default = %v, want Required", d)
	}
}
