package crdschema

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/config/crd"
)

func load(t testing.TB) Set {
	t.Helper()
	set, err := Load(crd.Files)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// object decodes YAML as the simulator does: to JSON, then with integers as int64.
func object(t *testing.T, text string) map[string]any {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(js, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestEveryCRDLoads(t *testing.T) {
	set := load(t)
	if set.For("scheduling.phalanx.dev/v1alpha1", "PodGroup") == nil {
		t.Fatalf("no PodGroup schema among %v", set)
	}
	if set.For("v1", "Pod") != nil || set.For("not/a/version", "PodGroup") != nil {
		t.Error("a schema for a kind no CRD defines")
	}
}

func TestAdmitPodGroup(t *testing.T) {
	pg := load(t).For("scheduling.phalanx.dev/v1alpha1", "PodGroup")
	cases := []struct {
		name string
		doc  string
		want []string // "type field" of every error, in order
	}{
		{name: "valid", doc: `spec: {schedulingPolicy: {gang: {minCount: 2}}}`},
		{name: "no policy", doc: `spec: {schedulingPolicy: {}}`,
			want: []string{"FieldValueInvalid spec.schedulingPolicy"}},
		{name: "two errors of the schema, rules not run", doc: `spec: {schedulingPolicy: {gang: {minCount: 0}}, preemptionPolicy: Sometimes, disruptionMode: {}}`,
			want: []string{"FieldValueNotSupported spec.preemptionPolicy", "FieldValueInvalid spec.schedulingPolicy.gang.minCount", "FieldValueInvalid <nil>"}},
		{name: "two rules", doc: `spec: {schedulingPolicy: {basic: {}}, disruptionMode: {all: {}, single: {}}}`,
			want: []string{"FieldValueInvalid spec.disruptionMode.all", "FieldValueInvalid spec.disruptionMode"}},
		{name: "a rule with a field path", doc: `spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a}, {key: a}]}}`,
			want: []string{"FieldValueInvalid spec.schedulingConstraints.topology"}},
		{name: "a rule on a string", doc: `spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: "-a"}]}}`,
			want: []string{"FieldValueInvalid spec.schedulingConstraints.topology[0].key"}},
		{name: "a map key twice", doc: `spec: {schedulingPolicy: {basic: {}}, resourceClaims: [{name: a, resourceClaimName: x}, {name: a, resourceClaimName: c2}, {name: a, resourceClaimName: z}]}`,
			want: []string{"FieldValueDuplicate spec.resourceClaims[1]"}},
		{name: "a bad name", doc: `metadata: {name: Web_1!, namespace: ns}
spec: {schedulingPolicy: {basic: {}}}`, want: []string{"FieldValueInvalid metadata.name"}},
		{name: "status is dropped on create", doc: `spec: {schedulingPolicy: {basic: {}}}
status: {phase: Nonsense}`},
		{name: "a null where none is allowed is dropped", doc: `spec: {schedulingPolicy: {basic: {}}, priority: null}`},
		{name: "a wrong type", doc: `spec: {schedulingPolicy: {basic: {}}, priority: high}`,
			want: []string{"FieldValueTypeInvalid spec.priority", "FieldValueInvalid <nil>"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := object(t, "{apiVersion: scheduling.phalanx.dev/v1alpha1, kind: PodGroup, metadata: {name: g, namespace: ns}}")
			for k, v := range object(t, tc.doc) {
				obj[k] = v
			}
			var got []string
			for _, e := range pg.Admit(obj) {
				f := e.Field
				if f == "" {
					f = "<nil>"
				}
				got = append(got, string(e.Type)+" "+f)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestAdmitFillsDefaults(t *testing.T) {
	pg := load(t).For("scheduling.phalanx.dev/v1alpha1", "PodGroup")
	obj := object(t, `{apiVersion: scheduling.phalanx.dev/v1alpha1, kind: PodGroup, metadata: {name: g, namespace: ns},
spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a}]}}}`)
	if errs := pg.Admit(obj); len(errs) > 0 {
		t.Fatal(errs)
	}
	got, _ := yaml.Marshal(obj["spec"])
	for _, want := range []string{"disruptionMode:\n  single: {}", "mode: Required"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("defaulted spec lacks %q:\n%s", want, got)
		}
	}
}

func TestUnsupportedSchemasAreRefused(t *testing.T) {
	for _, extra := range []string{
		"x-kubernetes-int-or-string: true", "x-kubernetes-preserve-unknown-fields: true",
		"anyOf: [{type: string}]", "additionalProperties: true",
	} {
		_, err := Parse([]byte(`{kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, scope: Namespaced,
versions: [{name: v1, served: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, ` + extra + `}}}}}]}}`))
		if err == nil {
			t.Errorf("%s: accepted", extra)
		}
	}
}

// FuzzAdmit gives the PodGroup schema arbitrary JSON objects: Admit must report errors,
// never panic (the CEL rules see only what the schema's checks let through).
func FuzzAdmit(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"scheduling.phalanx.dev/v1alpha1","kind":"PodGroup","metadata":{"name":"g","namespace":"ns"},"spec":{"schedulingPolicy":{"gang":{"minCount":2}}}}`,
		`{"metadata":{"name":"g","namespace":"ns"},"spec":{"schedulingPolicy":{"basic":{}},"disruptionMode":{"all":{}},"schedulingConstraints":{"topology":[{"key":"a"},{"key":"a","mode":"Preferred"}]}}}`,
		`{"metadata":{"name":"g","namespace":"ns"},"spec":{"schedulingPolicy":{"gang":{"minCount":1.5}},"priority":"x","resourceClaims":[{"name":"a"},{"name":"a"}]}}`,
		`{"spec":null,"status":{"phase":1}}`,
	} {
		f.Add([]byte(seed))
	}
	pg := load(f).For("scheduling.phalanx.dev/v1alpha1", "PodGroup")
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if json.Unmarshal(data, &obj) != nil || obj == nil {
			return
		}
		_ = pg.Admit(obj)
	})
}
