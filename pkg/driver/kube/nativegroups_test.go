package kube

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// TestGroupHandlers: both APIs' groups and the Workloads reach the scheduler through
// Post and Sources, one group per name, native ones mapped.
func TestGroupHandlers(t *testing.T) {
	r := &recorder{}
	var clashes []string
	s := nativegroup.NewSources(r, func(n *nativegroup.PodGroup, _ *v1alpha1.PodGroup, _ string) {
		clashes = append(clashes, n.Name)
	})
	crd := podGroupHandler(r, s)
	native := nativePodGroupHandler[*schedulingv1alpha2.PodGroup](r, s)
	workloads := workloadHandler[*schedulingv1alpha2.Workload](r, s)
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
	native := func(version string) *metav1.APIResourceList {
		return &metav1.APIResourceList{GroupVersion: "scheduling.k8s.io/" + version,
			APIResources: []metav1.APIResource{{Name: "podgroups"}, {Name: "workloads"}}}
	}
	workloadsOnly := &metav1.APIResourceList{GroupVersion: "scheduling.k8s.io/v1beta1",
		APIResources: []metav1.APIResource{{Name: "workloads"}}}
	k137 := []*metav1.APIResourceList{native("v1alpha3"), native("v1beta1")}
	tests := []struct {
		name    string
		src     GroupSource
		served  []*metav1.APIResourceList
		want    groupAPIs
		wantErr bool
	}{
		{"auto, CRD", GroupSourceAuto, []*metav1.APIResourceList{crdList}, groupAPIs{crd: true}, false},
		{"auto, 1.36", GroupSourceAuto, []*metav1.APIResourceList{native("v1alpha2")}, groupAPIs{native: "scheduling.k8s.io/v1alpha2"}, false},
		{"auto, 1.37: the beta", GroupSourceAuto, k137, groupAPIs{native: "scheduling.k8s.io/v1beta1"}, false},
		{"auto, 1.37 alpha only", GroupSourceAuto, []*metav1.APIResourceList{native("v1alpha3")}, groupAPIs{native: "scheduling.k8s.io/v1alpha3"}, false},
		{"auto, both", "", append([]*metav1.APIResourceList{crdList}, k137...), groupAPIs{crd: true, native: "scheduling.k8s.io/v1beta1"}, false},
		{"auto, neither: the CRD, once installed", GroupSourceAuto, nil, groupAPIs{crd: true}, false},
		{"auto, a version phalanx does not read: the CRD", GroupSourceAuto, []*metav1.APIResourceList{native("v1")}, groupAPIs{crd: true}, false},
		{"auto, the group version without podgroups", GroupSourceAuto, []*metav1.APIResourceList{workloadsOnly}, groupAPIs{crd: true}, false},
		{"crd whatever is served", GroupSourceCRD, k137, groupAPIs{crd: true}, false},
		{"native, the newest served", GroupSourceNative, append([]*metav1.APIResourceList{crdList}, k137...), groupAPIs{native: "scheduling.k8s.io/v1beta1"}, false},
		{"native, none served: an error", GroupSourceNative, []*metav1.APIResourceList{crdList}, groupAPIs{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: tc.served}}
			got, err := resolveGroupAPIs(context.Background(), disc, tc.src, klog.Background())
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("got %v, %v; want %v (error: %v)", got, err, tc.want, tc.wantErr)
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
	if err != nil || got != (groupAPIs{native: "scheduling.k8s.io/v1alpha2"}) || calls < 3 {
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
// patched on that object's status, in the version it was read from and that version's
// condition type (PodGroupInitiallyScheduled from v1beta1 and v1alpha3 on), merged by type
// with the conditions others wrote, naming the object's UID; a False is never written over
// a True PodGroupInitiallyScheduled.
func TestUpdateStatusOfNativeGroup(t *testing.T) {
	other := metav1.Condition{Type: "Other", Status: metav1.ConditionTrue, Reason: "Other", Message: "kept"}
	meta0 := metav1.ObjectMeta{Namespace: "ns", Name: "g", UID: "uid-g", Generation: 2}
	for _, tc := range []struct {
		version string
		obj     runtime.Object
		get     func(cs *fake.Clientset) ([]metav1.Condition, error)
	}{{
		version: nativegroup.V1beta1,
		obj: &schedulingv1beta1.PodGroup{ObjectMeta: meta0, Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}}, Status: schedulingv1beta1.PodGroupStatus{Conditions: []metav1.Condition{other}}},
		get: func(cs *fake.Clientset) ([]metav1.Condition, error) {
			pg, err := cs.SchedulingV1beta1().PodGroups("ns").Get(context.Background(), "g", metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return pg.Status.Conditions, nil
		},
	}, {
		version: nativegroup.V1alpha3,
		obj: &schedulingv1alpha3.PodGroup{ObjectMeta: meta0, Spec: schedulingv1alpha3.PodGroupSpec{SchedulingPolicy: schedulingv1alpha3.PodGroupSchedulingPolicy{
			Gang: &schedulingv1alpha3.GangSchedulingPolicy{MinCount: 2}}}, Status: schedulingv1alpha3.PodGroupStatus{Conditions: []metav1.Condition{other}}},
		get: func(cs *fake.Clientset) ([]metav1.Condition, error) {
			pg, err := cs.SchedulingV1alpha3().PodGroups("ns").Get(context.Background(), "g", metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return pg.Status.Conditions, nil
		},
	}} {
		t.Run(tc.version, func(t *testing.T) {
			cs := fake.NewClientset(tc.obj)
			c := NewClient(cs, nil, nil, klog.Background())
			read, err := nativegroup.PodGroupFrom(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			mapped := nativegroup.ToPodGroup(read, nil)
			write := func(status metav1.ConditionStatus, reason string) {
				t.Helper()
				meta.SetStatusCondition(&mapped.Status.Conditions, metav1.Condition{Type: "PodGroupScheduled", Status: status, Reason: reason,
					ObservedGeneration: 2, LastTransitionTime: metav1.Now()})
				mapped.Status.Phase = v1alpha1.PodGroupPhaseScheduled
				if err := c.UpdateStatus(context.Background(), mapped); err != nil {
					t.Fatal(err)
				}
			}
			write(metav1.ConditionTrue, "Scheduled")

			var patch map[string]any
			for _, a := range cs.Actions() {
				if p, ok := a.(clienttesting.PatchAction); ok {
					if r := p.GetResource(); r.Resource != "podgroups" || p.GetSubresource() != "status" || r.GroupVersion().String() != tc.version {
						t.Errorf("patch of %v/%s, want podgroups.%s/status", r, p.GetSubresource(), tc.version)
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
			if conds := status["conditions"].([]any); len(conds) != 1 || conds[0].(map[string]any)["type"] != "PodGroupInitiallyScheduled" {
				t.Errorf("patched conditions %v, want PodGroupInitiallyScheduled only (phalanx's)", conds)
			}
			conds, err := tc.get(cs)
			if err != nil {
				t.Fatal(err)
			}
			if c := meta.FindStatusCondition(conds, "PodGroupInitiallyScheduled"); c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != 2 {
				t.Errorf("PodGroupInitiallyScheduled %+v, want True for generation 2", c)
			}
			if c := meta.FindStatusCondition(conds, "Other"); c == nil || c.Message != "kept" {
				t.Errorf("another writer's condition %+v was not kept", c)
			}

			// The informer reports the True back; a later False is not written over it.
			back, _ := nativegroup.PodGroupFrom(tc.obj)
			back.Status.Conditions = conds
			mapped = nativegroup.ToPodGroup(back, nil)
			cs.ClearActions()
			write(metav1.ConditionFalse, "Unschedulable")
			conds, _ = tc.get(cs)
			if c := meta.FindStatusCondition(conds, "PodGroupInitiallyScheduled"); c == nil || c.Status != metav1.ConditionTrue {
				t.Errorf("PodGroupInitiallyScheduled %+v after a False write, want True kept", c)
			}
		})
	}
}

// TestUpdateStatusOfV1alpha2Group: a Kubernetes 1.36 group's conditions go to
// scheduling.k8s.io/v1alpha2 through phalanx's own REST client, as PodGroupScheduled.
func TestUpdateStatusOfV1alpha2Group(t *testing.T) {
	var got []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type")+" "+string(body))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup","metadata":{"name":"g","namespace":"ns"}}`))
	}))
	defer ts.Close()
	rc, err := newV1alpha2Client(&rest.Config{Host: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(nil, nil, nil, klog.Background())
	c.v1alpha2 = rc
	mapped := nativegroup.ToPodGroup(nativegroup.FromV1alpha2PodGroup(&schedulingv1alpha2.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", UID: "uid-g"},
		Spec: schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: schedulingv1alpha2.PodGroupSchedulingPolicy{
			Gang: &schedulingv1alpha2.GangSchedulingPolicy{MinCount: 2}}}}), nil)
	meta.SetStatusCondition(&mapped.Status.Conditions, metav1.Condition{Type: "PodGroupScheduled", Status: metav1.ConditionTrue, Reason: "Scheduled"})
	if err := c.UpdateStatus(context.Background(), mapped); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "PATCH /apis/scheduling.k8s.io/v1alpha2/namespaces/ns/podgroups/g/status application/strategic-merge-patch+json ") ||
		!strings.Contains(got[0], `"type":"PodGroupScheduled"`) || !strings.Contains(got[0], `"uid":"uid-g"`) {
		t.Errorf("requests %q, want one strategic merge patch of the v1alpha2 status with PodGroupScheduled", got)
	}
}
