package nativegroup

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// nativeComposite is a v1alpha3 CompositePodGroup as the API server holds it (defaults and
// admission applied), read by CompositeFrom.
func nativeComposite(name string, uid types.UID, change func(*schedulingv1alpha3.CompositePodGroupSpec)) *CompositePodGroup {
	in := &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: uid, Generation: 2},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef:      &schedulingv1alpha3.WorkloadReference{WorkloadName: "job", TemplateName: "slices"},
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 3}},
		},
	}
	if change != nil {
		change(&in.Spec)
	}
	out, err := CompositeFrom(in)
	if err != nil {
		panic(err)
	}
	return out
}

// compositeWorkload has a composite template "job-tmpl" holding "slices" (block topology,
// disruption mode all, class training), which holds the PodGroup template "slice".
func compositeWorkload() *Workload {
	prio := int32(100)
	never := schedulingv1beta1.PreemptNever
	return &Workload{
		TypeMeta:   typeMeta(V1alpha3, KindWorkload),
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job"},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
			Name:             "job-tmpl",
			SchedulingPolicy: schedulingv1beta1.CompositePodGroupSchedulingPolicy{Basic: &schedulingv1beta1.CompositeBasicSchedulingPolicy{}},
			CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
				Name:                  "slices",
				SchedulingPolicy:      schedulingv1beta1.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: 3}},
				SchedulingConstraints: &schedulingv1beta1.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "example.com/block"}}},
				DisruptionMode:        &schedulingv1beta1.CompositeDisruptionMode{All: &schedulingv1beta1.AllCompositeDisruptionMode{}},
				PriorityClassName:     "training",
				Priority:              &prio,
				PreemptionPolicy:      &never,
				PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{{Name: "slice",
					SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 8}}}},
			}},
		}}},
	}
}

func wantComposite(spec v1alpha1.CompositePodGroupSpec) *v1alpha1.CompositePodGroup {
	return &v1alpha1.CompositePodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1alpha3", Kind: "CompositePodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job-0", UID: "uid-c", Generation: 2},
		Spec:       spec,
	}
}

var (
	compositeGang3 = v1alpha1.CompositePodGroupSchedulingPolicy{Gang: &v1alpha1.CompositeGangSchedulingPolicy{MinGroupCount: 3}}
	blockOnly      = &v1alpha1.CompositePodGroupSchedulingConstraints{Topology: []v1alpha1.TopologyConstraint{
		{Key: "example.com/block", Mode: v1alpha1.TopologyModeRequired},
	}}
)

// TestToCompositePodGroup maps every field of the native composite, the fallback to its
// CompositePodGroup template at any depth of the Workload, and what the API server accepts
// but phalanx cannot schedule.
func TestToCompositePodGroup(t *testing.T) {
	never, lower := corev1.PreemptNever, corev1.PreemptLowerPriority
	cond := metav1.Condition{Type: "CompositePodGroupInitiallyScheduled", Status: metav1.ConditionFalse, Reason: "Unschedulable"}
	tests := []struct {
		name   string
		change func(*schedulingv1alpha3.CompositePodGroupSpec)
		wl     *Workload
		want   *v1alpha1.CompositePodGroup
	}{
		{"every field of its own", func(s *schedulingv1alpha3.CompositePodGroupSpec) {
			s.ParentCompositePodGroupName = ptrTo("job")
			s.SchedulingConstraints = &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{{Key: "example.com/block"}}}
			s.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{Single: &schedulingv1alpha3.SingleCompositeDisruptionMode{}}
			s.PriorityClassName, s.Priority = "high", ptrTo[int32](7)
			p := schedulingv1alpha3.PreemptLowerPriority
			s.PreemptionPolicy = &p
		}, compositeWorkload(), wantComposite(v1alpha1.CompositePodGroupSpec{
			ParentCompositePodGroupName: ptrTo("job"), SchedulingPolicy: compositeGang3, SchedulingConstraints: blockOnly,
			DisruptionMode: single, PriorityClassName: "high", Priority: ptrTo[int32](7), PreemptionPolicy: &lower,
		})},
		{"a basic composite", func(s *schedulingv1alpha3.CompositePodGroupSpec) {
			s.SchedulingPolicy = schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Basic: &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}}
			s.WorkloadRef = nil
		}, nil, wantComposite(v1alpha1.CompositePodGroupSpec{
			SchedulingPolicy: v1alpha1.CompositePodGroupSchedulingPolicy{Basic: &v1alpha1.BasicSchedulingPolicy{}},
		})},
		{"unset fields from the nested template", nil, compositeWorkload(), wantComposite(v1alpha1.CompositePodGroupSpec{
			SchedulingPolicy: compositeGang3, SchedulingConstraints: blockOnly, DisruptionMode: all,
			PriorityClassName: "training", Priority: ptrTo[int32](100), PreemptionPolicy: &never,
		})},
		{"a class of its own keeps the template's value off", func(s *schedulingv1alpha3.CompositePodGroupSpec) {
			s.PriorityClassName = "high"
		}, compositeWorkload(), wantComposite(v1alpha1.CompositePodGroupSpec{
			SchedulingPolicy: compositeGang3, SchedulingConstraints: blockOnly, DisruptionMode: all,
			PriorityClassName: "high", PreemptionPolicy: &never,
		})},
		{"all on a basic composite, from its template", func(s *schedulingv1alpha3.CompositePodGroupSpec) {
			s.SchedulingPolicy = schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Basic: &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}}
		}, compositeWorkload(), withInvalidComposite(wantComposite(v1alpha1.CompositePodGroupSpec{
			SchedulingPolicy:      v1alpha1.CompositePodGroupSchedulingPolicy{Basic: &v1alpha1.BasicSchedulingPolicy{}},
			SchedulingConstraints: blockOnly, PriorityClassName: "training", Priority: ptrTo[int32](100), PreemptionPolicy: &never,
		}), `spec.disruptionMode.all: Forbidden: may only be used with the gang scheduling policy (from template "slices" of Workload "job")`)},
		{"its Workload is not there", nil, nil, withInvalidComposite(wantComposite(v1alpha1.CompositePodGroupSpec{SchedulingPolicy: compositeGang3}),
			`spec.workloadRef.workloadName: Not found: "job"`)},
		{"its template is not there", func(s *schedulingv1alpha3.CompositePodGroupSpec) { s.WorkloadRef.TemplateName = "slice" },
			compositeWorkload(), withInvalidComposite(wantComposite(v1alpha1.CompositePodGroupSpec{SchedulingPolicy: compositeGang3}),
				`spec.workloadRef.templateName: Not found: "slice"`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := nativeComposite("job-0", "uid-c", tc.change)
			in.Status.Conditions = []metav1.Condition{cond}
			before := in.DeepCopy()
			got := ToCompositePodGroup(in, tc.wl)
			tc.want.Status.Conditions = []metav1.Condition{cond}
			if !apiequality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", asJSON(got), asJSON(tc.want))
			}
			if !apiequality.Semantic.DeepEqual(in, before) {
				t.Error("the native composite was changed")
			}
			if !IsNativeComposite(got) {
				t.Error("the mapped composite does not say it is native")
			}
		})
	}
}

func withInvalidComposite(c *v1alpha1.CompositePodGroup, reason string) *v1alpha1.CompositePodGroup {
	c.Annotations = map[string]string{v1alpha1.AnnotationInvalidReason: reason}
	return c
}

// A mapped composite the API server accepts is valid for phalanx too, unless it is one of
// the cases ToCompositePodGroup marks.
func TestToCompositePodGroupIsValid(t *testing.T) {
	c := ToCompositePodGroup(nativeComposite("job-0", "uid-c", nil), compositeWorkload())
	if errs := v1alpha1.ValidateCompositePodGroup(c); len(errs) > 0 || c.Annotations[v1alpha1.AnnotationInvalidReason] != "" {
		t.Errorf("mapped composite invalid: %v %v", errs, c.Annotations)
	}
	if _, err := CompositeFrom(&schedulingv1beta1.PodGroup{}); err == nil {
		t.Error("CompositeFrom read a PodGroup")
	}
	if IsNativeComposite(&v1alpha1.CompositePodGroup{}) || IsNativeComposite(nil) {
		t.Error("a CRD composite says it is native")
	}
}

// TestCompositeStatusConditions: phalanx's PodGroupScheduled is written as
// CompositePodGroupInitiallyScheduled, never False once True; DisruptionTarget as it is.
func TestCompositeStatusConditions(t *testing.T) {
	scheduled := func(s metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: v1alpha1.PodGroupScheduled, Status: s, Reason: "r"}
	}
	disrupt := metav1.Condition{Type: v1alpha1.DisruptionTarget, Status: metav1.ConditionTrue, Reason: "PreemptionByScheduler"}
	for _, tc := range []struct {
		name    string
		native  []metav1.Condition
		phalanx []metav1.Condition
		want    []string
	}{
		{"False", nil, []metav1.Condition{scheduled(metav1.ConditionFalse), {Type: "Other", Status: metav1.ConditionTrue}},
			[]string{"CompositePodGroupInitiallyScheduled=False"}},
		{"True", nil, []metav1.Condition{scheduled(metav1.ConditionTrue)}, []string{"CompositePodGroupInitiallyScheduled=True"}},
		{"once True", []metav1.Condition{{Type: CompositeInitiallyScheduled, Status: metav1.ConditionTrue}},
			[]metav1.Condition{scheduled(metav1.ConditionFalse), disrupt}, []string{"DisruptionTarget=True"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := nativeComposite("job-0", "uid-c", func(s *schedulingv1alpha3.CompositePodGroupSpec) { s.WorkloadRef = nil })
			c.Status.Conditions = tc.native
			mapped := ToCompositePodGroup(c, nil)
			mapped.Status.Conditions = tc.phalanx
			var got []string
			for _, c := range CompositeStatusConditions(mapped) {
				got = append(got, c.Type+"="+string(c.Status))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("conditions %v, want %v", got, tc.want)
			}
		})
	}
	c := CompositeClashCondition(nativeComposite("job-0", "uid-c", nil), "both", metav1.Now().Time)
	if c.Type != CompositeInitiallyScheduled || c.Status != metav1.ConditionFalse || c.Reason != "SchedulerError" || c.ObservedGeneration != 2 {
		t.Errorf("clash condition %+v", c)
	}
}

// TestValidateComposite holds the simulator to what the 1.37 API server refuses of a
// v1alpha3 CompositePodGroup, in its words.
func TestValidateComposite(t *testing.T) {
	tests := []struct {
		name   string
		change func(*schedulingv1alpha3.CompositePodGroup)
		want   string
	}{
		{"valid", func(*schedulingv1alpha3.CompositePodGroup) {}, ""},
		{"bad name", func(c *schedulingv1alpha3.CompositePodGroup) { c.Name = "Job" }, `metadata.name: Invalid value: "Job"`},
		{"no workloadRef", func(c *schedulingv1alpha3.CompositePodGroup) { c.Spec.WorkloadRef = nil }, "spec.workloadRef: Required value"},
		{"two policies", func(c *schedulingv1alpha3.CompositePodGroup) {
			c.Spec.SchedulingPolicy.Basic = &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}
		}, "spec.schedulingPolicy: Invalid value"},
		{"no policy", func(c *schedulingv1alpha3.CompositePodGroup) {
			c.Spec.SchedulingPolicy = schedulingv1alpha3.CompositePodGroupSchedulingPolicy{}
		}, "spec.schedulingPolicy: Invalid value"},
		{"minGroupCount zero", func(c *schedulingv1alpha3.CompositePodGroup) { c.Spec.SchedulingPolicy.Gang.MinGroupCount = 0 },
			"spec.schedulingPolicy.gang.minGroupCount"},
		{"two topology levels", func(c *schedulingv1alpha3.CompositePodGroup) {
			c.Spec.SchedulingConstraints = &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{
				{Key: "example.com/block"}, {Key: "example.com/rack"}}}
		}, "spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item"},
		{"bad parent name", func(c *schedulingv1alpha3.CompositePodGroup) { c.Spec.ParentCompositePodGroupName = ptrTo("Job") },
			`spec.parentCompositePodGroupName: Invalid value: "Job"`},
		{"priority too high", func(c *schedulingv1alpha3.CompositePodGroup) { c.Spec.Priority = ptrTo[int32](1000000001) },
			"spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000"},
		{"bad preemption policy", func(c *schedulingv1alpha3.CompositePodGroup) {
			p := schedulingv1alpha3.PreemptionPolicy("Sometimes")
			c.Spec.PreemptionPolicy = &p
		}, `spec.preemptionPolicy: Unsupported value: "Sometimes"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &schedulingv1alpha3.CompositePodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job-0"},
				Spec: schedulingv1alpha3.CompositePodGroupSpec{
					WorkloadRef:      &schedulingv1alpha3.WorkloadReference{WorkloadName: "job", TemplateName: "slices"},
					SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
				},
			}
			tc.change(c)
			checkErrors(t, Validate(c).ToAggregate(), tc.want)
			if c.Spec.DisruptionMode == nil || c.Spec.DisruptionMode.Single == nil {
				t.Errorf("disruption mode %+v, want the default single", c.Spec.DisruptionMode)
			}
		})
	}
}

func crdComposite(name string, uid types.UID) *v1alpha1.CompositePodGroup {
	return &v1alpha1.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: uid},
		Spec:       v1alpha1.CompositePodGroupSpec{SchedulingPolicy: compositeGang3},
	}
}

// TestSourcesComposites: composites of either API reach the sink, a native one mapped with
// its Workload's template; a name both define is a clash, reported once per pair; and
// PodGroups and composites of one name are different objects.
func TestSourcesComposites(t *testing.T) {
	r := newRecorder()
	s := NewSources(r, r.clash)
	s.OnCompositeClash(r.compositeClash)
	missing := `spec.workloadRef.workloadName: Not found: "job"`

	n := nativeComposite("job-0", "nat-c", nil)
	s.SetNativeComposite(n)
	expectCalls(t, "native composite before its Workload", r, "add composite ml/job-0 native nat-c invalid: "+missing)
	wl := compositeWorkload()
	s.SetWorkload(wl)
	expectCalls(t, "the Workload arrives", r, "update composite ml/job-0 native nat-c")
	if got := r.lastComposite["ml/job-0"]; !got.DisruptAll() || got.Spec.SchedulingConstraints == nil {
		t.Errorf("the template was not applied: %s", asJSON(got.Spec))
	}
	s.SetCRD(crdGroup("job-0", "crd-g"))
	expectCalls(t, "a PodGroup of the composite's name", r, "add ml/job-0 crd crd-g")

	msg := "CompositePodGroup ml/job-0 is defined both as a scheduling.phalanx.dev/v1alpha1 CompositePodGroup and as a scheduling.k8s.io/v1alpha3 CompositePodGroup: phalanx schedules neither until one of them is deleted"
	c := crdComposite("job-0", "crd-c")
	s.SetCRDComposite(c)
	expectCalls(t, "a CRD composite of the same name", r, "update composite ml/job-0 crd crd-c invalid: "+msg)
	if want := []string{"composite job-0 nat-c crd-c: " + msg}; !slices.Equal(r.clashes, want) {
		t.Errorf("clashes %q, want %q", r.clashes, want)
	}
	s.SetCRDComposite(c.DeepCopy())
	r.take()
	if len(r.clashes) != 1 {
		t.Errorf("clash reported %d times, want once", len(r.clashes))
	}
	s.DeleteNativeComposite(n)
	expectCalls(t, "the native composite goes", r, "update composite ml/job-0 crd crd-c")
	s.DeleteWorkload(wl)
	expectCalls(t, "a Workload no native composite uses", r)
	s.DeleteCRDComposite(c)
	expectCalls(t, "the CRD composite goes", r, "delete composite ml/job-0 crd crd-c")
	if len(r.last) != 1 || len(r.lastComposite) != 0 {
		t.Errorf("the sink holds %v and %v", r.last, r.lastComposite)
	}
}
