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

// TestCompositeHandlers: CompositePodGroups of both APIs reach the scheduler through Post
// and Sources, one per name, native ones mapped (tombstones unwrapped); a name both APIs
// define is reported once.
func TestCompositeHandlers(t *testing.T) {
	r := &recorder{}
	s := nativegroup.NewSources(r, nil)
	var clashes []string
	s.OnCompositeClash(func(n *nativegroup.CompositePodGroup, _ *v1alpha1.CompositePodGroup, msg string) {
		clashes = append(clashes, n.Name+": "+msg)
	})
	crd := compositeHandler(r, s)
	native := nativeCompositeHandler(r, s)
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: "ns", Name: name} }
	nc := &schedulingv1alpha3.CompositePodGroup{ObjectMeta: meta("job"), Spec: schedulingv1alpha3.CompositePodGroupSpec{
		SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}}}}
	cc := &v1alpha1.CompositePodGroup{ObjectMeta: meta("other")}
	clash := &v1alpha1.CompositePodGroup{ObjectMeta: meta("job")}

	native.OnAdd(nc, true)
	crd.OnAdd(cc, true)
	native.OnUpdate(nc, nc)
	crd.OnAdd(clash, false)
	crd.OnDelete(tombstone(clash))
	native.OnDelete(tombstone(nc))
	crd.OnUpdate(cc, cc)
	crd.OnDelete(cc)
	native.OnAdd(&v1.ConfigMap{}, false) // wrong type: dropped

	v := nativegroup.V1alpha3
	want := []string{"AddCompositePodGroup job " + v, "AddCompositePodGroup other ", "UpdateCompositePodGroup job " + v,
		"UpdateCompositePodGroup job ", "UpdateCompositePodGroup job " + v,
		"DeleteCompositePodGroup job " + v, "UpdateCompositePodGroup other ", "DeleteCompositePodGroup other "}
	if !slices.Equal(r.calls, want) {
		t.Errorf("calls %q, want %q", r.calls, want)
	}
	if r.posts != 8 {
		t.Errorf("%d posts, want one per event", r.posts)
	}
	if len(clashes) != 1 || !strings.HasPrefix(clashes[0], "job: CompositePodGroup ns/job is defined both") {
		t.Errorf("clashes %q, want job once", clashes)
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
	crdComposites := &metav1.APIResourceList{GroupVersion: "scheduling.phalanx.dev/v1alpha1",
		APIResources: []metav1.APIResource{{Name: "podgroups"}, {Name: "compositepodgroups"}}}
	k137Composites := []*metav1.APIResourceList{{GroupVersion: "scheduling.k8s.io/v1alpha3",
		APIResources: []metav1.APIResource{{Name: "podgroups"}, {Name: "compositepodgroups"}, {Name: "workloads"}}}, native("v1beta1")}
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
		{"composites of both APIs", GroupSourceAuto, append([]*metav1.APIResourceList{crdComposites}, k137Composites...),
			groupAPIs{crd: true, native: "scheduling.k8s.io/v1beta1", crdComposites: true, nativeComposites: true}, false},
		{"native composites with the alpha", GroupSourceAuto, k137Composites[:1],
			groupAPIs{native: "scheduling.k8s.io/v1alpha3", nativeComposites: true}, false},
		{"crd: its composites only", GroupSourceCRD, append([]*metav1.APIResourceList{crdComposites}, k137Composites...),
			groupAPIs{crd: true, crdComposites: true}, false},
		{"native: its composites only", GroupSourceNative, append([]*metav1.APIResourceList{crdComposites}, k137Composites...),
			groupAPIs{native: "scheduling.k8s.io/v1beta1", nativeComposites: true}, false},
		{"1.36 and the CRD of PodGroups only: no composites, no error", GroupSourceAuto, []*metav1.APIResourceList{crdList, native("v1alpha2")},
			groupAPIs{crd: true, native: "scheduling.k8s.io/v1alpha2"}, false},
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

			checkStatusPatch(t, cs, "podgroups", tc.version, "uid-g", "PodGroupInitiallyScheduled")
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

// TestUpdateStatusOfNativeComposite: a composite mapped from a native CompositePodGroup
// has its conditions patched on that object's v1alpha3 status, phalanx's PodGroupScheduled
// as CompositePodGroupInitiallyScheduled, merged by type, naming its UID; a False is never
// written over a True.
func TestUpdateStatusOfNativeComposite(t *testing.T) {
	other := metav1.Condition{Type: "Other", Status: metav1.ConditionTrue, Reason: "Other", Message: "kept"}
	obj := &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "job", UID: "uid-c", Generation: 2},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{
			Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}}},
		Status: schedulingv1alpha3.CompositePodGroupStatus{Conditions: []metav1.Condition{other}},
	}
	cs := fake.NewClientset(obj)
	c := NewClient(cs, nil, nil, klog.Background())
	get := func() []metav1.Condition {
		t.Helper()
		got, err := cs.SchedulingV1alpha3().CompositePodGroups("ns").Get(context.Background(), "job", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got.Status.Conditions
	}
	read, err := nativegroup.CompositeFrom(obj)
	if err != nil {
		t.Fatal(err)
	}
	mapped := nativegroup.ToCompositePodGroup(read, nil)
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
	checkStatusPatch(t, cs, "compositepodgroups", nativegroup.V1alpha3, "uid-c", nativegroup.CompositeInitiallyScheduled)
	conds := get()
	if got := meta.FindStatusCondition(conds, "CompositePodGroupInitiallyScheduled"); got == nil || got.Status != metav1.ConditionTrue || got.ObservedGeneration != 2 {
		t.Errorf("CompositePodGroupInitiallyScheduled %+v, want True for generation 2", got)
	}
	if got := meta.FindStatusCondition(conds, "Other"); got == nil || got.Message != "kept" {
		t.Errorf("another writer's condition %+v was not kept", got)
	}

	back := read.DeepCopy()
	back.Status.Conditions = conds
	mapped = nativegroup.ToCompositePodGroup(back, nil)
	write(metav1.ConditionFalse, "Unschedulable")
	if got := meta.FindStatusCondition(get(), "CompositePodGroupInitiallyScheduled"); got == nil || got.Status != metav1.ConditionTrue {
		t.Errorf("CompositePodGroupInitiallyScheduled %+v after a False write, want True kept", got)
	}
}

// checkStatusPatch checks the one patch of the fake clientset: of resource's status in
// version, naming the object's uid and phalanx's one condition only, of type typ (the
// native status has no phase).
func checkStatusPatch(t *testing.T, cs *fake.Clientset, resource, version, uid, typ string) {
	t.Helper()
	var patch map[string]any
	for _, a := range cs.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			if r := p.GetResource(); r.Resource != resource || p.GetSubresource() != "status" || r.GroupVersion().String() != version {
				t.Errorf("patch of %v/%s, want %s.%s/status", r, p.GetSubresource(), resource, version)
			}
			if err := json.Unmarshal(p.GetPatch(), &patch); err != nil {
				t.Fatal(err)
			}
		}
	}
	if patch == nil {
		t.Fatal("no patch")
	}
	if got := patch["metadata"].(map[string]any)["uid"]; got != uid {
		t.Errorf("patch metadata.uid %v, want %s", got, uid)
	}
	status := patch["status"].(map[string]any)
	if _, ok := status["phase"]; ok || len(status) != 1 {
		t.Errorf("patch status %v: want conditions only", status)
	}
	if conds := status["conditions"].([]any); len(conds) != 1 || conds[0].(map[string]any)["type"] != typ {
		t.Errorf("patched conditions %v, want %s only (phalanx's)", conds, typ)
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
