package kube

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// TestGroupHandlers: both APIs' groups and the Workloads reach the scheduler through
// Post and Sources, one group per name, native ones mapped.
func TestGroupHandlers(t *testing.T) {
	r := &recorder{}
	var clashes []string
	s := nativegroup.NewSources(r, func(n *schedulingv1alpha2.PodGroup, _ *v1alpha1.PodGroup, _ string) {
		clashes = append(clashes, n.Name)
	})
	crd, native, workloads := podGroupHandler(r, s), nativePodGroupHandler(r, s), workloadHandler(r, s)
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: "ns", Name: name} }
	gang := schedulingv1alpha2.PodGroupSchedulingPolicy{Gang: &schedulingv1alpha2.GangSchedulingPolicy{MinCount: 2}}
	ref := &schedulingv1alpha2.PodGroupTemplateReference{Workload: &schedulingv1alpha2.WorkloadPodGroupTemplateReference{
		WorkloadName: "job", PodGroupTemplateName: "workers"}}
	wl := &schedulingv1alpha2.Workload{ObjectMeta: meta("job"), Spec: schedulingv1alpha2.WorkloadSpec{
		PodGroupTemplates: []schedulingv1alpha2.PodGroupTemplate{{Name: "workers", SchedulingPolicy: gang}}}}
	ng := &schedulingv1alpha2.PodGroup{ObjectMeta: meta("n"), Spec: schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: gang, PodGroupTemplateRef: ref}}
	cg := &v1alpha1.PodGroup{ObjectMeta: meta("c")}
	clash := &v1alpha1.PodGroup{ObjectMeta: meta("n")}

	workloads.OnAdd(wl, true)
	native.OnAdd(ng, true)
	crd.OnAdd(cg, true)
	native.OnUpdate(ng, ng)
	crd.OnUpdate(cg, cg)
	crd.OnAdd(clash, false)
	crd.OnDelete(tombstone(clash))
	workloads.OnDelete(tombstone(wl))
	native.OnDelete(ng)
	crd.OnDelete(cg)
	native.OnAdd(&v1.ConfigMap{}, false) // wrong type: dropped

	want := []string{"AddPodGroup n", "AddPodGroup c", "UpdatePodGroup n", "UpdatePodGroup c",
		"UpdatePodGroup n", "UpdatePodGroup n", "UpdatePodGroup n", "DeletePodGroup n", "DeletePodGroup c"}
	if !slices.Equal(r.calls, want) {
		t.Errorf("calls %q, want %q", r.calls, want)
	}
	if r.posts != 10 {
		t.Errorf("%d posts, want one per event", r.posts)
	}
	if !slices.Equal(clashes, []string{"n"}) {
		t.Errorf("clashes %q, want n once", clashes)
	}
}

func TestResolveGroupAPIs(t *testing.T) {
	crdList := &metav1.APIResourceList{GroupVersion: "scheduling.phalanx.dev/v1alpha1",
		APIResources: []metav1.APIResource{{Name: "podgroups"}, {Name: "podgroups/status"}}}
	nativeList := &metav1.APIResourceList{GroupVersion: "scheduling.k8s.io/v1alpha2",
		APIResources: []metav1.APIResource{{Name: "podgroups"}, {Name: "workloads"}}}
	workloadsOnly := &metav1.APIResourceList{GroupVersion: "scheduling.k8s.io/v1alpha2",
		APIResources: []metav1.APIResource{{Name: "workloads"}}}
	tests := []struct {
		name   string
		src    GroupSource
		served []*metav1.APIResourceList
		want   groupAPIs
	}{
		{"auto, CRD", GroupSourceAuto, []*metav1.APIResourceList{crdList}, groupAPIs{crd: true}},
		{"auto, native", GroupSourceAuto, []*metav1.APIResourceList{nativeList}, groupAPIs{native: true}},
		{"auto, both", "", []*metav1.APIResourceList{crdList, nativeList}, groupAPIs{crd: true, native: true}},
		{"auto, neither: the CRD, once installed", GroupSourceAuto, nil, groupAPIs{crd: true}},
		{"auto, the group version without podgroups", GroupSourceAuto, []*metav1.APIResourceList{workloadsOnly}, groupAPIs{crd: true}},
		{"crd whatever is served", GroupSourceCRD, []*metav1.APIResourceList{nativeList}, groupAPIs{crd: true}},
		{"native whatever is served", GroupSourceNative, []*metav1.APIResourceList{crdList}, groupAPIs{native: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: tc.served}}
			got, err := resolveGroupAPIs(context.Background(), disc, tc.src, klog.Background())
			if err != nil || got != tc.want {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// A server that does not answer discovery is asked again; a cancelled context ends it.
func TestResolveGroupAPIsRetries(t *testing.T) {
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{
		{GroupVersion: "scheduling.k8s.io/v1alpha2", APIResources: []metav1.APIResource{{Name: "podgroups"}}}}}}
	calls := 0
	disc.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		calls++
		if calls <= 2 {
			return true, nil, errors.New("connection refused")
		}
		return false, nil, nil
	})
	defer func(d time.Duration) { discoveryRetry = d }(discoveryRetry)
	discoveryRetry = time.Millisecond
	got, err := resolveGroupAPIs(context.Background(), disc, GroupSourceAuto, klog.Background())
	if err != nil || got != (groupAPIs{native: true}) || calls < 3 {
		t.Errorf("got %v, %v after %d calls; want native after 2 failures", got, err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	disc.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	if _, err := resolveGroupAPIs(ctx, disc, GroupSourceAuto, klog.Background()); err == nil {
		t.Error("no error with a cancelled context")
	}
}

// TestUpdateStatusOfNativeGroup: a group mapped from a native PodGroup has its conditions
// patched on that object's status, merged by type with the conditions others wrote, and
// names the object's UID.
func TestUpdateStatusOfNativeGroup(t *testing.T) {
	other := metav1.Condition{Type: "Other", Status: metav1.ConditionTrue, Reason: "Other", Message: "kept"}
	native := &schedulingv1alpha2.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", UID: "uid-g", Generation: 2},
		Spec: schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: schedulingv1alpha2.PodGroupSchedulingPolicy{
			Gang: &schedulingv1alpha2.GangSchedulingPolicy{MinCount: 2}}},
		Status: schedulingv1alpha2.PodGroupStatus{Conditions: []metav1.Condition{other}},
	}
	cs := fake.NewClientset(native)
	c := NewClient(cs, nil, nil, klog.Background())

	mapped := nativegroup.ToPodGroup(native, nil)
	scheduled := metav1.Condition{Type: "PodGroupScheduled", Status: metav1.ConditionTrue, Reason: "Scheduled",
		ObservedGeneration: 2, LastTransitionTime: metav1.Now()}
	meta.SetStatusCondition(&mapped.Status.Conditions, scheduled)
	mapped.Status.Phase = v1alpha1.PodGroupPhaseScheduled
	if err := c.UpdateStatus(context.Background(), mapped); err != nil {
		t.Fatal(err)
	}

	var patch map[string]any
	for _, a := range cs.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			if p.GetResource().Resource != "podgroups" || p.GetSubresource() != "status" || p.GetResource().Group != "scheduling.k8s.io" {
				t.Errorf("patch of %v/%s, want podgroups.scheduling.k8s.io/status", p.GetResource(), p.GetSubresource())
			}
			if err := json.Unmarshal(p.GetPatch(), &patch); err != nil {
				t.Fatal(err)
			}
		}
	}
	if patch == nil {
		t.Fatal("no patch")
	}
	if uid := patch["metadata"].(map[string]any)["uid"]; uid != "uid-g" {
		t.Errorf("patch metadata.uid %v, want the group's", uid)
	}
	status := patch["status"].(map[string]any)
	if _, ok := status["phase"]; ok || len(status) != 1 {
		t.Errorf("patch status %v: want conditions only (the native status has no phase)", status)
	}
	if conds := status["conditions"].([]any); len(conds) != 1 || conds[0].(map[string]any)["type"] != "PodGroupScheduled" {
		t.Errorf("patched conditions %v, want PodGroupScheduled only (phalanx's)", conds)
	}
	got, err := cs.SchedulingV1alpha2().PodGroups("ns").Get(context.Background(), "g", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, "PodGroupScheduled"); c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != 2 {
		t.Errorf("PodGroupScheduled %+v, want True for generation 2", c)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, "Other"); c == nil || c.Message != "kept" {
		t.Errorf("another writer's condition %+v was not kept", c)
	}
}
