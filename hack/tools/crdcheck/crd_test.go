package crdcheck

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
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

// TestCRDAgreesWithValidatePodGroup runs each manifest through the CRD and through
// ValidatePodGroup: both must accept it, or both must reject it with an error under the
// given field.
func TestCRDAgreesWithValidatePodGroup(t *testing.T) {
	api := newAPIServer(t)
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
