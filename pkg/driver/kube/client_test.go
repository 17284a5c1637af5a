package kube

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/driver/kube/dispatch"
)

func pendingPod() *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-1"},
		Spec:       v1.PodSpec{SchedulerName: "phalanx"},
	}
}

// applyStatusPatch applies a PatchPodStatus body to a pod the way the API server does
// (strategic merge), and returns the result.
func applyStatusPatch(t *testing.T, server *v1.Pod, body []byte) *v1.Pod {
	t.Helper()
	orig, err := json.Marshal(server)
	if err != nil {
		t.Fatal(err)
	}
	out, err := strategicpatch.StrategicMergePatch(orig, body, v1.Pod{})
	if err != nil {
		t.Fatalf("patch %s: %v", body, err)
	}
	got := &v1.Pod{}
	if err := json.Unmarshal(out, got); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestPodStatusPatch(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	ready := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue}
	unschedulable := func(msg string, at metav1.Time) v1.PodCondition {
		return v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: "Unschedulable", Message: msg, LastTransitionTime: at}
	}
	tests := []struct {
		name string
		// server is the pod as the API server has it; seen is the scheduler's copy.
		server, seen  *v1.Pod
		cond          *v1.PodCondition
		nominated     *string
		wantBody      string
		wantNominated string
		wantConds     []v1.PodCondition
	}{
		{
			name:   "condition added, others kept",
			server: withStatus(pendingPod(), "", ready), seen: pendingPod(),
			cond:      new(unschedulable("0/1 nodes are available", t1)),
			wantBody:  `{"metadata":{"uid":"uid-1"},"status":{"conditions":[{"lastTransitionTime":"2026-01-01T00:01:00Z","message":"0/1 nodes are available","reason":"Unschedulable","status":"False","type":"PodScheduled"}]}}`,
			wantConds: []v1.PodCondition{ready, unschedulable("0/1 nodes are available", t1)},
		},
		{
			name:   "same status keeps its transition time",
			server: withStatus(pendingPod(), "", unschedulable("old", t0)), seen: withStatus(pendingPod(), "", unschedulable("old", t0)),
			cond:      new(unschedulable("new", t1)),
			wantConds: []v1.PodCondition{unschedulable("new", t0)},
		},
		{
			name:   "nomination set",
			server: pendingPod(), seen: pendingPod(),
			nominated:     new("n1"),
			wantBody:      `{"metadata":{"uid":"uid-1"},"status":{"nominatedNodeName":"n1"}}`,
			wantNominated: "n1",
		},
		{
			name: "nomination cleared even when the scheduler's copy never saw it",
			// The scheduler's copy predates the nomination: a diff of its copy would
			// send nothing.
			server: withStatus(pendingPod(), "n1"), seen: pendingPod(),
			nominated: new(""),
			wantBody:  `{"metadata":{"uid":"uid-1"},"status":{"nominatedNodeName":null}}`,
		},
		{
			name:   "condition and nomination together",
			server: withStatus(pendingPod(), "n1", ready), seen: pendingPod(),
			cond: &v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: "PreemptionByScheduler"}, nominated: new(""),
			wantConds: []v1.PodCondition{ready, {Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: "PreemptionByScheduler"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, err := podStatusPatch(tc.seen, tc.cond, tc.nominated)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantBody != "" && string(body) != tc.wantBody {
				t.Errorf("body\n %s\nwant\n %s", body, tc.wantBody)
			}
			got := applyStatusPatch(t, tc.server, body)
			if got.Status.NominatedNodeName != tc.wantNominated {
				t.Errorf("nominatedNodeName %q, want %q", got.Status.NominatedNodeName, tc.wantNominated)
			}
			if tc.wantConds != nil && !equalConditions(got.Status.Conditions, tc.wantConds) {
				t.Errorf("conditions\n %+v\nwant\n %+v", got.Status.Conditions, tc.wantConds)
			}
		})
	}
}

func withStatus(p *v1.Pod, nominated string, conds ...v1.PodCondition) *v1.Pod {
	p.Status.NominatedNodeName = nominated
	p.Status.Conditions = conds
	return p
}

// equalConditions compares conditions by type, in any order (a merge patch may put the
// new ones first).
func equalConditions(a, b []v1.PodCondition) bool {
	if len(a) != len(b) {
		return false
	}
	byType := map[v1.PodConditionType]v1.PodCondition{}
	for _, c := range a {
		byType[c.Type] = c
	}
	for _, y := range b {
		x, ok := byType[y.Type]
		if !ok || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			!x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}

func TestClientCalls(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(pendingPod())
	c := NewClient(cs, nil, nil, klog.Background())

	if err := c.BindPod(ctx, pendingPod(), "n1"); err != nil {
		t.Fatal(err)
	}
	if err := c.PatchPodStatus(ctx, pendingPod(), nil, new("n1")); err != nil {
		t.Fatal(err)
	}
	if err := c.DeletePod(ctx, pendingPod(), new(int64(5))); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, a := range cs.Actions() {
		switch a := a.(type) {
		case clienttesting.CreateAction:
			if a.GetSubresource() != "binding" {
				continue
			}
			b := a.GetObject().(*v1.Binding)
			if b.UID != "uid-1" || b.Name != "p" || b.Target.Kind != "Node" || b.Target.Name != "n1" {
				t.Errorf("binding %+v: want the pod's name and UID, target Node n1", b)
			}
			seen = append(seen, "bind")
		case clienttesting.PatchAction:
			if a.GetSubresource() != "status" || a.GetPatchType() != types.StrategicMergePatchType {
				t.Errorf("patch of %q with %s, want a strategic merge patch of status", a.GetSubresource(), a.GetPatchType())
			}
			seen = append(seen, "patch")
		case clienttesting.DeleteAction:
			o := a.GetDeleteOptions()
			if o.Preconditions == nil || o.Preconditions.UID == nil || *o.Preconditions.UID != "uid-1" {
				t.Errorf("delete preconditions %+v: want the pod's UID", o.Preconditions)
			}
			if o.GracePeriodSeconds == nil || *o.GracePeriodSeconds != 5 {
				t.Errorf("delete grace %v, want 5", o.GracePeriodSeconds)
			}
			seen = append(seen, "delete")
		}
	}
	if strings.Join(seen, ",") != "bind,patch,delete" {
		t.Errorf("calls %v, want bind, patch, delete", seen)
	}
}

// A delete refused because the UID precondition failed means the pod the scheduler
// meant is gone (a new one has its name): NotFound, which preemption treats as done.
func TestDeleteOfAReplacedPodIsNotFound(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(v1.Resource("pods"), "p", nil)
	})
	err := NewClient(cs, nil, nil, klog.Background()).DeletePod(context.Background(), pendingPod(), nil)
	if !apierrors.IsNotFound(err) {
		t.Errorf("got %v, want NotFound", err)
	}
}

func TestTruncateNote(t *testing.T) {
	short := "0/3 nodes are available: 3 Insufficient cpu."
	if got := truncateNote(short); got != short {
		t.Errorf("short note changed: %q", got)
	}
	long := strings.Repeat("é", 2000) // 2 bytes each
	got := truncateNote(long)
	if len(got) > noteLimit || !utf8.ValidString(got) || !strings.HasSuffix(got, " ...") {
		t.Errorf("truncated note: %d bytes, valid UTF-8 %v, suffix %q", len(got), utf8.ValidString(got), got[len(got)-4:])
	}
}

func TestMergePodGroupStatus(t *testing.T) {
	latest := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "g", ResourceVersion: "9", Generation: 3},
		Status: v1alpha1.PodGroupStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{
			{Type: "Other", Status: metav1.ConditionTrue, Reason: "X"},
			{Type: v1alpha1.PodGroupScheduled, Status: metav1.ConditionFalse, Reason: "Unschedulable", Message: "old"},
		}},
	}
	want := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "g", ResourceVersion: "5"},
		Status: v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupPhaseScheduled, ObservedGeneration: 3, Conditions: []metav1.Condition{
			{Type: v1alpha1.PodGroupScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled"},
		}},
	}
	got := mergePodGroupStatus(latest, want)
	if got.ResourceVersion != "9" {
		t.Errorf("resourceVersion %s, want the latest (9)", got.ResourceVersion)
	}
	if got.Status.Phase != v1alpha1.PodGroupPhaseScheduled || got.Status.ObservedGeneration != 3 {
		t.Errorf("phase %s, observedGeneration %d", got.Status.Phase, got.Status.ObservedGeneration)
	}
	if len(got.Status.Conditions) != 2 || got.Status.Conditions[0].Type != "Other" ||
		got.Status.Conditions[1].Status != metav1.ConditionTrue {
		t.Errorf("conditions %+v: want Other kept and PodGroupScheduled=True", got.Status.Conditions)
	}
	if latest.Status.Phase != "" {
		t.Errorf("latest was modified")
	}
	// Claim statuses phalanx wrote are kept, and those it adds win.
	name := "g-fabric"
	want.Status.ResourceClaimStatuses = []v1alpha1.PodGroupResourceClaimStatus{{Name: "fabric", ResourceClaimName: &name}}
	if got := mergePodGroupStatus(latest, want); len(got.Status.ResourceClaimStatuses) != 1 {
		t.Errorf("claim statuses %v, want want's", got.Status.ResourceClaimStatuses)
	}
	latest.Status.ResourceClaimStatuses = want.Status.ResourceClaimStatuses
	want.Status.ResourceClaimStatuses = nil
	if got := mergePodGroupStatus(latest, want); len(got.Status.ResourceClaimStatuses) != 1 {
		t.Errorf("claim statuses %v, want latest's kept", got.Status.ResourceClaimStatuses)
	}
}

func TestEventWithoutRecorderOrObject(t *testing.T) {
	c := NewClient(fake.NewClientset(), nil, nil, klog.Background())
	var nilPod *v1.Pod
	c.Event(nilPod, nil, v1.EventTypeNormal, "Scheduled", "Binding", "x") // must not panic
	c.Event(pendingPod(), nilPod, v1.EventTypeNormal, "Scheduled", "Binding", "x")
	if err := c.UpdateStatus(context.Background(), &v1.Pod{}); err == nil {
		t.Errorf("UpdateStatus of a Pod: want an error")
	}
}

// The client's calls take their class from what they do: with one call in flight at a
// time, a victim's condition goes before a binding, the binding before a nomination,
// and a pod's failure report last, the newest replacing an older one still queued.
func TestClientCallClasses(t *testing.T) {
	cs := fake.NewClientset()
	release := make(chan struct{})
	var order []string
	cs.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		what := a.GetVerb() + " " + a.GetSubresource()
		if p, ok := a.(clienttesting.PatchAction); ok {
			what += " " + string(p.GetPatch())
		}
		order = append(order, what)
		if len(order) == 1 {
			<-release // the first call holds the only slot until the rest are queued
		}
		return true, nil, nil
	})
	c := NewClient(cs, nil, nil, klog.Background())
	c.calls = dispatch.New(1, nil, time.Minute, dispatch.NewMetrics(prometheus.NewRegistry()))
	pod := func(uid string) *v1.Pod {
		p := pendingPod()
		p.UID = types.UID(uid)
		return p
	}
	cond := func(typ v1.PodConditionType, msg string) *v1.PodCondition {
		return &v1.PodCondition{Type: typ, Status: v1.ConditionFalse, Message: msg}
	}
	calls := []func(){
		func() { _ = c.DeletePod(context.Background(), pod("first"), nil) },
		func() { _ = c.PatchPodStatus(context.Background(), pod("a"), cond(v1.PodScheduled, "old"), nil) },
		func() { _ = c.PatchPodStatus(context.Background(), pod("b"), nil, new("n1")) },
		func() { _ = c.BindPod(context.Background(), pod("c"), "n1") },
		func() { _ = c.PatchPodStatus(context.Background(), pod("d"), cond(v1.DisruptionTarget, "victim"), nil) },
		func() { _ = c.PatchPodStatus(context.Background(), pod("a"), cond(v1.PodScheduled, "new"), nil) },
	}
	done := make(chan struct{}, len(calls))
	for i, call := range calls {
		go func() { call(); done <- struct{}{} }()
		// Each is queued before the next is made.
		for want := uint64(i + 1); ; {
			if c.calls.Filed() >= want {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	close(release)
	for range calls {
		<-done
	}
	var got []string
	for _, o := range order {
		switch {
		case strings.HasPrefix(o, "delete"):
			got = append(got, "delete")
		case strings.HasPrefix(o, "create binding"):
			got = append(got, "bind")
		case strings.Contains(o, "victim"):
			got = append(got, "DisruptionTarget")
		case strings.Contains(o, "nominatedNodeName"):
			got = append(got, "nominate")
		case strings.Contains(o, `"new"`):
			got = append(got, "report new")
		default:
			got = append(got, "other: "+o)
		}
	}
	want := "delete,DisruptionTarget,bind,nominate,report new"
	if strings.Join(got, ",") != want {
		t.Errorf("calls made %v, want %s (the old report superseded)", got, want)
	}
}
