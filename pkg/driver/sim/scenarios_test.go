package sim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// A scenario file is a set of manifests plus one document of kind Expectation that says
// what the simulation must produce. Scenario files live under testdata/scenarios at the
// repository root, one behaviour per file.
type expectation struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
	Seed        int64  `json:"seed,omitempty"`
	Until       string `json:"until,omitempty"`
	// Config is a SchedulerConfiguration to run with.
	Config *config.Configuration `json:"config,omitempty"`
	// WorkloadWithJob models the Job controller with that gate on.
	WorkloadWithJob bool `json:"workloadWithJob,omitempty"`
	// Pods are checked by "namespace/name" (or "name" in default).
	Pods map[string]podExpectation `json:"pods,omitempty"`
	// Groups are checked by "namespace/name" (or "name"); "native:namespace/name" (or
	// "native:name") is the scheduling.k8s.io PodGroup of that name, for when
	// phalanx's PodGroup has the same name.
	Groups map[string]groupExpectation `json:"groups,omitempty"`
	// Composites are the CompositePodGroups, by "namespace/name" (or "name"); "native:" as
	// for groups.
	Composites map[string]groupExpectation `json:"composites,omitempty"`
	// Claims are checked by "namespace/name" (or "name"), at the end of the run.
	Claims map[string]claimExpectation `json:"claims,omitempty"`
	// Events must all occur, in this order (other events may come between).
	Events []eventExpectation `json:"events,omitempty"`
	// NoEvents must not occur.
	NoEvents []eventExpectation `json:"noEvents,omitempty"`
	Summary  map[string]float64 `json:"summary,omitempty"`
}

type podExpectation struct {
	Phase         string   `json:"phase,omitempty"`
	Node          *string  `json:"node,omitempty"`
	NodeIn        []string `json:"nodeIn,omitempty"`
	NodeNotIn     []string `json:"nodeNotIn,omitempty"`
	NominatedNode *string  `json:"nominatedNode,omitempty"`
	BoundAt       *float64 `json:"boundAt,omitempty"`
	// PreemptedBy is "Pod/ns/name", "PodGroup/ns/name" or "" for none.
	PreemptedBy *string `json:"preemptedBy,omitempty"`
	// Message must be contained in the pod's message.
	Message string `json:"message,omitempty"`
	// Devices, when set, are the pod's devices exactly ("driver/pool/device", sorted);
	// DeviceCount how many it has; Volumes its "claim=volume" bindings exactly.
	Devices     []string `json:"devices,omitempty"`
	DeviceCount *int     `json:"deviceCount,omitempty"`
	Volumes     []string `json:"volumes,omitempty"`
}

type groupExpectation struct {
	Phase string `json:"phase,omitempty"`
	// Parent is the composite it names ("" for none), when set.
	Parent               *string `json:"parent,omitempty"`
	conditionExpectation `json:",inline"`
	// Conditions are more conditions to check, each as Condition above.
	Conditions []conditionExpectation `json:"conditions,omitempty"`
}

// conditionExpectation checks a condition: Condition is "Type=Status", and Reason and
// Message (substrings) check it.
type conditionExpectation struct {
	Condition string `json:"condition,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
}

// claimExpectation checks a ResourceClaim; Absent says it must not exist.
type claimExpectation struct {
	Devices     []string `json:"devices,omitempty"`
	DeviceCount *int     `json:"deviceCount,omitempty"`
	ReservedFor []string `json:"reservedFor,omitempty"`
	Absent      bool     `json:"absent,omitempty"`
}

type eventExpectation struct {
	Time    *float64 `json:"time,omitempty"`
	Object  string   `json:"object,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	Message string   `json:"message,omitempty"`
}

func (e eventExpectation) matches(ev report.Event) bool {
	return (e.Time == nil || *e.Time == ev.Time) && (e.Object == "" || e.Object == ev.Object) &&
		(e.Reason == "" || e.Reason == ev.Reason) && strings.Contains(ev.Message, e.Message)
}

const scenarioDir = "../../../testdata/scenarios"

func TestScenarios(t *testing.T) {
	var files []string
	err := filepath.WalkDir(scenarioDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files found")
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, scenarioDir+"/"), ".yaml")
		t.Run(name, func(t *testing.T) { runScenarioFile(t, f, nil) })
		if strings.HasPrefix(name, "native/") {
			// Kubernetes 1.37's versions of the same native groups must behave the same.
			for _, v := range []string{"v1beta1", "v1alpha3"} {
				t.Run(name+"@"+v, func(t *testing.T) { runScenarioFile(t, f, func(b []byte) []byte { return asV1beta1(b, v) }) })
			}
		}
	}
}

var templateRef = regexp.MustCompile(`podGroupTemplateRef: \{workload: \{workloadName: ([^,]+), podGroupTemplateName: ([^}]+)\}\}`)

// asV1beta1 rewrites a scenario of scheduling.k8s.io/v1alpha2 PodGroups and Workloads into
// the same scenario in v1beta1's shape, under version (v1beta1 or v1alpha3): the fields
// v1alpha2 spelled otherwise, and, in the expectations, the condition type and the
// messages that name fields or the version.
func asV1beta1(data []byte, version string) []byte {
	s := templateRef.ReplaceAllString(string(data), "workloadRef: {workloadName: $1, templateName: $2}")
	for _, r := range [][2]string{
		{"scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/" + version},
		{"disruptionMode: PodGroup", "disruptionMode: {all: {}}"},
		{"disruptionMode: Pod\n", "disruptionMode: {single: {}}\n"},
		{`spec.disruptionMode: Invalid value: "PodGroup": may only be used with the gang scheduling policy`,
			`spec.disruptionMode.all: Forbidden: may only be used with the gang scheduling policy`},
		{"spec.disruptionMode: Invalid value", "spec.disruptionMode.all: Forbidden"},
		{"spec.podGroupTemplateRef.workload.workloadName", "spec.workloadRef.workloadName"},
		{"native:train: {phase: Scheduled, condition: PodGroupScheduled", "native:train: {phase: Scheduled, condition: PodGroupInitiallyScheduled"},
	} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	// Every group of a native-only scenario is native: its condition is the version's.
	if !strings.Contains(s, "scheduling.phalanx.dev/v1alpha1") {
		s = strings.ReplaceAll(s, "condition: PodGroupScheduled=", "condition: PodGroupInitiallyScheduled=")
	}
	return []byte(s)
}

// splitScenario separates the Expectation document from the manifests.
func splitScenario(t *testing.T, data []byte) (*expectation, []byte) {
	t.Helper()
	doc, manifests := simtest.SplitScenario(t, data)
	exp := &expectation{}
	if err := yaml.UnmarshalStrict(doc, exp); err != nil {
		t.Fatalf("expectation: %v", err)
	}
	return exp, manifests
}

// runScenarioFile runs a scenario file, rewritten by rewrite first unless it is nil.
func runScenarioFile(t *testing.T, file string, rewrite func([]byte) []byte) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if rewrite != nil {
		data = rewrite(data)
	}
	runScenario(t, data)
}

// runScenario simulates manifests with their Expectation document, invariants checked.
func runScenario(t *testing.T, data []byte) {
	exp, manifests := splitScenario(t, data)
	in, err := manifest.Decode([]string{"-"}, bytes.NewReader(manifests))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	sc, err := admission.Admit(admission.ControlPlane{WorkloadWithJob: exp.WorkloadWithJob}, in)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	opts := sim.Options{Seed: exp.Seed, CheckInvariants: true}
	if exp.Config != nil {
		config.SetDefaults(exp.Config)
		if errs := config.Validate(exp.Config); len(errs) > 0 {
			t.Fatalf("config: %v", errs.ToAggregate())
		}
		opts.Config = exp.Config
	}
	if exp.Until != "" {
		if opts.Until, err = time.ParseDuration(exp.Until); err != nil {
			t.Fatal(err)
		}
	}
	_, r := simtest.Run(t, sc, opts)
	checkReport(t, exp, r)
	validateReport(t, r)
	if t.Failed() {
		var buf bytes.Buffer
		_ = report.WriteText(&buf, r)
		t.Logf("%s\n%s", exp.Description, buf.String())
	}
}

func checkReport(t *testing.T, exp *expectation, r *report.Report) {
	t.Helper()
	checkClaims(t, exp, r)
	pods := map[string]report.Pod{}
	for _, p := range r.Pods {
		pods[p.Namespace+"/"+p.Name] = p
	}
	for k, want := range exp.Pods {
		if !strings.Contains(k, "/") {
			k = "default/" + k
		}
		got, ok := pods[k]
		if !ok {
			t.Errorf("pod %s: not in the report", k)
			continue
		}
		if want.Phase != "" && got.Phase != want.Phase {
			t.Errorf("pod %s: phase %s, want %s", k, got.Phase, want.Phase)
		}
		if want.Node != nil && got.Node != *want.Node {
			t.Errorf("pod %s: node %q, want %q", k, got.Node, *want.Node)
		}
		if len(want.NodeIn) > 0 && !contains(want.NodeIn, got.Node) {
			t.Errorf("pod %s: node %q, want one of %v", k, got.Node, want.NodeIn)
		}
		if contains(want.NodeNotIn, got.Node) {
			t.Errorf("pod %s: node %q, want none of %v", k, got.Node, want.NodeNotIn)
		}
		if want.NominatedNode != nil && got.NominatedNode != *want.NominatedNode {
			t.Errorf("pod %s: nominated node %q, want %q", k, got.NominatedNode, *want.NominatedNode)
		}
		if want.Devices != nil && strings.Join(want.Devices, ",") != strings.Join(got.Devices, ",") {
			t.Errorf("pod %s: devices %v, want %v", k, got.Devices, want.Devices)
		}
		if want.DeviceCount != nil && len(got.Devices) != *want.DeviceCount {
			t.Errorf("pod %s: %d devices (%v), want %d", k, len(got.Devices), got.Devices, *want.DeviceCount)
		}
		if want.Volumes != nil && strings.Join(want.Volumes, ",") != strings.Join(got.Volumes, ",") {
			t.Errorf("pod %s: volumes %v, want %v", k, got.Volumes, want.Volumes)
		}
		if want.BoundAt != nil && (got.BoundAt == nil || *got.BoundAt != *want.BoundAt) {
			t.Errorf("pod %s: bound at %v, want %v", k, fmtPtr(got.BoundAt), *want.BoundAt)
		}
		if want.PreemptedBy != nil {
			by := ""
			if got.PreemptedBy != nil {
				by = got.PreemptedBy.Kind + "/" + got.PreemptedBy.Namespace + "/" + got.PreemptedBy.Name
			}
			if by != *want.PreemptedBy {
				t.Errorf("pod %s: preempted by %q, want %q", k, by, *want.PreemptedBy)
			}
		}
		if !strings.Contains(got.Message, want.Message) {
			t.Errorf("pod %s: message %q does not contain %q", k, got.Message, want.Message)
		}
	}
	checkGroups(t, "group", exp.Groups, r.PodGroups)
	checkGroups(t, "composite", exp.Composites, r.CompositePodGroups)
	i := 0
	for _, ev := range r.Events {
		if i < len(exp.Events) && exp.Events[i].matches(ev) {
			i++
		}
	}
	if i < len(exp.Events) {
		t.Errorf("event %+v (expectation %d) did not occur in order", exp.Events[i], i)
	}
	for _, ne := range exp.NoEvents {
		for _, ev := range r.Events {
			if ne.matches(ev) {
				t.Errorf("unexpected event at %gs: %s %s %s", ev.Time, ev.Object, ev.Reason, ev.Message)
			}
		}
	}
	sum := map[string]float64{"pods": float64(r.Summary.Pods), "running": float64(r.Summary.Running),
		"pending": float64(r.Summary.Pending), "succeeded": float64(r.Summary.Succeeded),
		"preempted": float64(r.Summary.Preempted), "deleted": float64(r.Summary.Deleted),
		"virtualSeconds": r.Summary.VirtualSeconds}
	for k, want := range exp.Summary {
		got, ok := sum[k]
		if !ok {
			t.Errorf("summary.%s: unknown field", k)
		} else if got != want {
			t.Errorf("summary.%s = %g, want %g", k, got, want)
		}
	}
}

// checkGroups checks groups or composites (what) against their expectations, by
// "namespace/name", "name" in default, and "native:" for Kubernetes' own of that name.
func checkGroups(t *testing.T, what string, exp map[string]groupExpectation, reports []report.Group) {
	t.Helper()
	groups := map[string]report.Group{}
	for _, g := range reports {
		k := g.Namespace + "/" + g.Name
		if g.APIVersion != "" {
			groups["native:"+k] = g
			if _, crd := groups[k]; crd {
				continue
			}
		}
		groups[k] = g
	}
	for k, want := range exp {
		name, native := strings.CutPrefix(k, "native:")
		if !strings.Contains(name, "/") {
			k = "default/" + name
			if native {
				k = "native:" + k
			}
		}
		got, ok := groups[k]
		if !ok {
			t.Errorf("%s %s: not in the report", what, k)
			continue
		}
		if want.Phase != "" && got.Phase != want.Phase {
			t.Errorf("%s %s: phase %s, want %s", what, k, got.Phase, want.Phase)
		}
		if want.Parent != nil && got.Parent != *want.Parent {
			t.Errorf("%s %s: parent %q, want %q", what, k, got.Parent, *want.Parent)
		}
		for _, c := range append([]conditionExpectation{want.conditionExpectation}, want.Conditions...) {
			checkCondition(t, what+" "+k, c, got.Conditions)
		}
	}
}

func checkCondition(t *testing.T, what string, want conditionExpectation, conds []report.Condition) {
	t.Helper()
	if want.Condition == "" {
		return
	}
	typ, status, _ := strings.Cut(want.Condition, "=")
	for _, c := range conds {
		if c.Type == typ {
			if c.Status != status || !strings.Contains(c.Reason, want.Reason) || !strings.Contains(c.Message, want.Message) {
				t.Errorf("%s: condition %s=%s (%s: %s), want %s (%s: %s)", what, c.Type, c.Status, c.Reason, c.Message, want.Condition, want.Reason, want.Message)
			}
			return
		}
	}
	t.Errorf("%s: no %s condition", what, typ)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func fmtPtr(f *float64) any {
	if f == nil {
		return "never"
	}
	return *f
}

func checkClaims(t *testing.T, exp *expectation, r *report.Report) {
	t.Helper()
	claims := map[string]report.Claim{}
	for _, c := range r.Claims {
		claims[c.Namespace+"/"+c.Name] = c
	}
	for k, want := range exp.Claims {
		if !strings.Contains(k, "/") {
			k = "default/" + k
		}
		got, ok := claims[k]
		switch {
		case want.Absent && ok:
			t.Errorf("claim %s: exists (%v), want none", k, got)
			continue
		case want.Absent:
			continue
		case !ok:
			t.Errorf("claim %s: not in the report", k)
			continue
		}
		if want.Devices != nil && strings.Join(want.Devices, ",") != strings.Join(got.Devices, ",") {
			t.Errorf("claim %s: devices %v, want %v", k, got.Devices, want.Devices)
		}
		if want.DeviceCount != nil && len(got.Devices) != *want.DeviceCount {
			t.Errorf("claim %s: %d devices (%v), want %d", k, len(got.Devices), got.Devices, *want.DeviceCount)
		}
		if want.ReservedFor != nil && strings.Join(want.ReservedFor, ",") != strings.Join(got.ReservedFor, ",") {
			t.Errorf("claim %s: reserved for %v, want %v", k, got.ReservedFor, want.ReservedFor)
		}
	}
}
