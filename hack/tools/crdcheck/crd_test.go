package crdcheck

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/config/crd"
	"github.com/phalanx-dev/phalanx/pkg/crdschema"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

const crdFile = "../../../config/crd/scheduling.phalanx.dev_podgroups.yaml"

// apiServer validates PodGroups as kube-apiserver does for the CRD: prune, default, then
// check the OpenAPI schema, list types and CEL rules.
type apiServer struct {
	structural *schema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

func newAPIServer(t *testing.T) *apiServer {
	t.Helper()
	data, err := os.ReadFile(crdFile)
	if err != nil {
		t.Fatal(err)
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &v1); err != nil {
		t.Fatalf("%s: %v", crdFile, err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var crd apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &crd, nil); err != nil {
		t.Fatal(err)
	}
	// What kube-apiserver checks when the CRD is created, CEL compilation and cost included.
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), &crd); len(errs) > 0 {
		t.Fatalf("kube-apiserver would refuse the CRD: %v", errs.ToAggregate())
	}
	// The internal form keeps a schema shared by all versions at the top.
	openAPI := crd.Spec.Validation.OpenAPIV3Schema
	s, err := schema.NewStructural(openAPI)
	if err != nil {
		t.Fatal(err)
	}
	sv, _, err := apiservervalidation.NewSchemaValidator(openAPI)
	if err != nil {
		t.Fatal(err)
	}
	return &apiServer{structural: s, schema: sv, cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}
}

func (a *apiServer) validate(obj map[string]any) field.ErrorList {
	pruning.Prune(obj, a.structural, true)
	defaulting.Default(obj, a.structural)
	errs := apiservervalidation.ValidateCustomResource(nil, obj, a.schema)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, a.structural, obj)...)
	celErrs, _ := a.cel.Validate(context.Background(), nil, a.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// create is what kube-apiserver does to a PodGroup it is asked to create
// (customResourceStrategy): the status dropped (the CRD has a status subresource), nulls
// pruned, defaults filled, then metadata, schema, list types, and the CEL rules unless
// an earlier error blocks them.
func (a *apiServer) create(obj map[string]any) field.ErrorList {
	delete(obj, "status")
	pruning.Prune(obj, a.structural, true)
	defaulting.PruneNonNullableNullsWithoutDefaults(obj, a.structural)
	defaulting.Default(obj, a.structural)
	u := &unstructured.Unstructured{Object: obj}
	errs := apimachineryvalidation.ValidateObjectMetaAccessor(u, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, a.schema)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, a.structural, obj)...)
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
		}
	}
	celErrs, _ := a.cel.Validate(context.Background(), nil, a.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// TestCRDAgreesWithValidatePodGroup runs each manifest through the CRD and through
// ValidatePodGroup: both must accept it, or both must reject it with an error under the
// given field.
func TestCRDAgreesWithValidatePodGroup(t *testing.T) {
	api := newAPIServer(t)
	simulator, err := crdschema.Load(crd.Files)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		spec  string // YAML of the spec
		extra string // YAML merged at the top level, e.g. a status
		field string // where both must report an error; "" when the manifest is valid
	}{
		{name: "gang", spec: `{schedulingPolicy: {gang: {minCount: 2}}}`},
		{name: "basic", spec: `{schedulingPolicy: {basic: {}}}`},
		{name: "the contract's example", spec: `{schedulingPolicy: {gang: {minCount: 8}}, disruptionMode: {all: {}},
			priorityClassName: high, priority: 1000, preemptionPolicy: PreemptLowerPriority,
			schedulingConstraints: {topology: [{key: example.com/block, mode: Required}, {key: example.com/rack, mode: Preferred}]}}`},
		{name: "no policy", spec: `{schedulingPolicy: {}}`, field: "spec.schedulingPolicy"},
		{name: "two policies", spec: `{schedulingPolicy: {basic: {}, gang: {minCount: 1}}}`, field: "spec.schedulingPolicy"},
		{name: "minCount 0", spec: `{schedulingPolicy: {gang: {minCount: 0}}}`, field: "spec.schedulingPolicy.gang.minCount"},
		{name: "all with basic", spec: `{schedulingPolicy: {basic: {}}, disruptionMode: {all: {}}}`, field: "spec.disruptionMode.all"},
		{name: "no disruption mode in the union", spec: `{schedulingPolicy: {basic: {}}, disruptionMode: {}}`, field: "spec.disruptionMode"},
		{name: "two disruption modes", spec: `{schedulingPolicy: {gang: {minCount: 1}}, disruptionMode: {all: {}, single: {}}}`, field: "spec.disruptionMode"},
		{name: "single with basic", spec: `{schedulingPolicy: {basic: {}}, disruptionMode: {single: {}}}`},
		{name: "unknown preemption policy", spec: `{schedulingPolicy: {basic: {}}, preemptionPolicy: Sometimes}`, field: "spec.preemptionPolicy"},
		{name: "priority class name not a DNS subdomain", spec: `{schedulingPolicy: {basic: {}}, priorityClassName: Bad_Name}`, field: "spec.priorityClassName"},
		{name: "lowest priority", spec: `{schedulingPolicy: {basic: {}}, priority: -2147483648}`},
		{name: "empty constraints", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {}}`},
		{name: "topology levels, mode defaulted", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a/b}, {key: c, mode: Preferred}, {key: d, mode: Preferred}]}}`},
		{name: "four topology levels", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a}, {key: b}, {key: c}, {key: d}]}}`},
		{name: "five topology levels", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a}, {key: b}, {key: c}, {key: d}, {key: e}]}}`, field: "spec.schedulingConstraints.topology"},
		{name: "topology key repeated", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a}, {key: a, mode: Preferred}]}}`, field: "spec.schedulingConstraints.topology"},
		{name: "Required after Preferred", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a, mode: Preferred}, {key: b}]}}`, field: "spec.schedulingConstraints.topology"},
		{name: "unknown topology mode", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a, mode: Maybe}]}}`, field: "spec.schedulingConstraints.topology[0].mode"},
		{name: "topology key missing", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{mode: Preferred}]}}`, field: "spec.schedulingConstraints.topology[0].key"},
		{name: "topology key not a label key", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: "-a/b/c"}]}}`, field: "spec.schedulingConstraints.topology[0].key"},
		{name: "topology key name part too long", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: "example.com/` + strings.Repeat("a", 64) + `"}]}}`, field: "spec.schedulingConstraints.topology[0].key"},
		{name: "group claims", spec: `{schedulingPolicy: {gang: {minCount: 2}}, resourceClaims: [{name: fabric, resourceClaimName: fabric-0}, {name: gpus, resourceClaimTemplateName: gpus}]}`},
		{name: "group claim with both sources", spec: `{schedulingPolicy: {basic: {}}, resourceClaims: [{name: a, resourceClaimName: x, resourceClaimTemplateName: y}]}`, field: "spec.resourceClaims[0]"},
		{name: "group claim with no source", spec: `{schedulingPolicy: {basic: {}}, resourceClaims: [{name: a}]}`, field: "spec.resourceClaims[0]"},
		{name: "group claim name not a DNS label", spec: `{schedulingPolicy: {basic: {}}, resourceClaims: [{name: A.b, resourceClaimName: x}]}`, field: "spec.resourceClaims[0].name"},
		{name: "group claim name repeated", spec: `{schedulingPolicy: {basic: {}}, resourceClaims: [{name: a, resourceClaimName: x}, {name: a, resourceClaimName: y}]}`, field: "spec.resourceClaims[1]"},
		{name: "five group claims", spec: `{schedulingPolicy: {basic: {}}, resourceClaims: [{name: a, resourceClaimName: x}, {name: b, resourceClaimName: x}, {name: c, resourceClaimName: x}, {name: d, resourceClaimName: x}, {name: e, resourceClaimName: x}]}`, field: "spec.resourceClaims"},
		{name: "device topology by attribute", spec: `{schedulingPolicy: {gang: {minCount: 2}}, schedulingConstraints: {topology: [{key: rack}], deviceTopology: {matchAttribute: gpu.example.com/clique}}}`},
		{name: "device topology by pool", spec: `{schedulingPolicy: {gang: {minCount: 2}}, schedulingConstraints: {deviceTopology: {}}}`},
		{name: "device attribute not qualified", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {deviceTopology: {matchAttribute: clique}}}`, field: "spec.schedulingConstraints.deviceTopology.matchAttribute"},
		{name: "device attribute with a bad name", spec: `{schedulingPolicy: {basic: {}}, schedulingConstraints: {deviceTopology: {matchAttribute: "gpu.example.com/-clique"}}}`, field: "spec.schedulingConstraints.deviceTopology.matchAttribute"},
		{name: "claim statuses", spec: `{schedulingPolicy: {basic: {}}}`, extra: `{status: {resourceClaimStatuses: [{name: gpus, resourceClaimName: g-gpus}]}}`},
		{name: "a status", spec: `{schedulingPolicy: {basic: {}}}`,
			extra: `{status: {phase: Scheduled, observedGeneration: 1, conditions: [{type: PodGroupScheduled, status: "True", reason: Scheduled, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}]}}`},
		{name: "unknown phase", spec: `{schedulingPolicy: {basic: {}}}`, extra: `{status: {phase: Running}}`, field: "status.phase"},
		{name: "negative observed generation", spec: `{schedulingPolicy: {basic: {}}}`, extra: `{status: {observedGeneration: -1}}`, field: "status.observedGeneration"},
		{name: "condition type repeated", spec: `{schedulingPolicy: {basic: {}}}`,
			extra: `{status: {conditions: [{type: A, status: "True", reason: R, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: A, status: "False", reason: R, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}]}}`,
			field: "status.conditions[1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			manifest := "{apiVersion: scheduling.phalanx.dev/v1alpha1, kind: PodGroup, metadata: {name: g, namespace: n}, spec: " + tc.spec + "}"
			obj := decode[map[string]any](t, manifest)
			if tc.extra != "" {
				for k, v := range decode[map[string]any](t, tc.extra) {
					obj[k] = v
				}
			}
			data, err := yaml.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			// ValidatePodGroup sees the manifest as written, without the CRD's defaults, as the
			// simulator reads it.
			goErrs := v1alpha1.ValidatePodGroup(new(decode[v1alpha1.PodGroup](t, string(data))))
			simObj := decodeJSON(t, data)
			// The simulator's copy of the API server's checks finds the same errors on create.
			sameErrors(t, api.create(runtime.DeepCopyJSON(obj)), simulator.For("scheduling.phalanx.dev/v1alpha1", "PodGroup").Admit(simObj))
			crdErrs := api.validate(obj)

			for who, errs := range map[string]field.ErrorList{"CRD": crdErrs, "ValidatePodGroup": goErrs} {
				if tc.field == "" && len(errs) > 0 {
					t.Errorf("%s rejects a valid manifest: %v", who, errs)
				}
				if tc.field != "" && !hasErrorUnder(errs, tc.field) {
					t.Errorf("%s: no error under %s, got %v", who, tc.field, errs)
				}
			}
		})
	}
}

// sameErrors fails unless pkg/crdschema (the simulator's) found the errors the API
// server's own code did: the same fields, types and details, in any order. The API
// server also validates the metadata, which the test's API server leaves out.
func sameErrors(t *testing.T, apiServer, simulator field.ErrorList) {
	t.Helper()
	var want, got []string
	for _, e := range apiServer {
		want = append(want, e.Error())
	}
	for _, e := range simulator {
		got = append(got, e.Error())
	}
	sort.Strings(want)
	sort.Strings(got)
	t.Logf("the API server's errors:\n%s", strings.Join(want, "\n"))
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Errorf("pkg/crdschema disagrees with the API server:\n%s\nthe API server:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// decodeJSON decodes as the simulator does (integers as int64).
func decodeJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(js, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func decode[T any](t *testing.T, text string) T {
	t.Helper()
	var v T
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

func hasErrorUnder(errs field.ErrorList, path string) bool {
	for _, err := range errs {
		if err.Field == path || strings.HasPrefix(err.Field, path+".") || strings.HasPrefix(err.Field, path+"[") {
			return true
		}
	}
	return false
}

// TestSimulatorCreatesAsTheAPIServer holds pkg/crdschema, the simulator's copy of what
// kube-apiserver does on create, to the API server's own code on manifests the table
// above does not have: metadata, nulls, wrong types, several errors at once.
func TestSimulatorCreatesAsTheAPIServer(t *testing.T) {
	api := newAPIServer(t)
	simulator, err := crdschema.Load(crd.Files)
	if err != nil {
		t.Fatal(err)
	}
	for _, manifest := range []string{
		`{metadata: {name: Web_1!, namespace: ns, labels: {"a/b/c": x}}, spec: {schedulingPolicy: {basic: {}}}}`,
		`{metadata: {name: g}, spec: {schedulingPolicy: {basic: {}}}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}}, priority: null, priorityClassName: null, disruptionMode: null}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}}, priority: high}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}}, priority: 2147483648}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {gang: {minCount: 1.5}}}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: []}}`,
		`{metadata: {name: g, namespace: ns}, spec: {}}`,
		`{metadata: {name: g, namespace: ns}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}}, resourceClaims: [{name: a, resourceClaimName: c1}, {name: a, resourceClaimName: c2}, {name: a, resourceClaimName: c3}, {name: b, resourceClaimName: c4}, {name: b, resourceClaimName: c5}]}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}}, resourceClaims: [{resourceClaimName: c1}, {resourceClaimName: c2}]}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}, gang: {minCount: 2}}, disruptionMode: {all: {}, single: {}}, schedulingConstraints: {topology: [{key: b, mode: Preferred}, {key: a}, {key: a}]}}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: "` + strings.Repeat("a", 400) + `"}]}}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a}, {key: b}, {key: c}, {key: d}, {key: e}]}}}`,
		`{metadata: {name: g, namespace: ns}, spec: {schedulingPolicy: {basic: {}}}, status: {phase: Nonsense}}`,
	} {
		t.Run(manifest, func(t *testing.T) {
			obj := decode[map[string]any](t, "{apiVersion: scheduling.phalanx.dev/v1alpha1, kind: PodGroup}")
			for k, v := range decode[map[string]any](t, manifest) {
				obj[k] = v
			}
			data, err := yaml.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			sameErrors(t, api.create(decodeJSON(t, data)), simulator.For("scheduling.phalanx.dev/v1alpha1", "PodGroup").Admit(decodeJSON(t, data)))
		})
	}
}
