//go:build e2e

package e2eutil

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// Kubernetes' own PodGroups and Workloads, in the version the control plane serves
// (scheduling.k8s.io/v1beta1 on v1.37, v1alpha2 on v1.36: hack/e2e.sh turns the API on).
// Tests write and read them in nativegroup's shape (v1beta1's); these helpers convert to
// and from the version served, and read its scheduled condition as phalanx's
// PodGroupScheduled.

var (
	nativeOnce    sync.Once
	nativeVersion string
)

// NativeVersion is the scheduling.k8s.io version the control plane serves PodGroups in,
// the newest of those phalanx reads ("" for none).
func (c *Cluster) NativeVersion(t testing.TB) string {
	t.Helper()
	nativeOnce.Do(func() {
		disc, err := discovery.NewDiscoveryClientForConfig(c.Config)
		if err != nil {
			t.Fatalf("discovery: %v", err)
		}
		for _, v := range nativegroup.Versions {
			list, err := disc.ServerResourcesForGroupVersion(v)
			if err != nil {
				continue
			}
			for _, r := range list.APIResources {
				if r.Name == "podgroups" && nativeVersion == "" {
					nativeVersion = v
				}
			}
		}
	})
	return nativeVersion
}

func (c *Cluster) native(t testing.TB, resource, ns string) dynamic.ResourceInterface {
	t.Helper()
	v := c.NativeVersion(t)
	if v == "" {
		t.Fatal("the control plane serves no scheduling.k8s.io PodGroups")
	}
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatalf("dynamic client: %v", err)
	}
	gv, _ := schema.ParseGroupVersion(v)
	return dyn.Resource(gv.WithResource(resource)).Namespace(ns)
}

// CreateNativePodGroup creates a native PodGroup, given in v1beta1's shape, in the version
// served (the namespace's deletion cleans it up) and returns it as created.
func (c *Cluster) CreateNativePodGroup(t testing.TB, pg *nativegroup.PodGroup) *nativegroup.PodGroup {
	t.Helper()
	u := toServed(t, c.NativeVersion(t), pg)
	created, err := c.native(t, "podgroups", pg.Namespace).Create(Context(t), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create PodGroup.scheduling.k8s.io %s/%s: %v", pg.Namespace, pg.Name, err)
	}
	return fromServed(t, created)
}

// NativePodGroup reads a native PodGroup in v1beta1's shape.
func (c *Cluster) NativePodGroup(ctx context.Context, t testing.TB, ns, name string) (*nativegroup.PodGroup, error) {
	u, err := c.native(t, "podgroups", ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return fromServed(t, u), nil
}

// NativePodGroups lists the native PodGroups of ns in v1beta1's shape.
func (c *Cluster) NativePodGroups(ctx context.Context, t testing.TB, ns string) ([]*nativegroup.PodGroup, error) {
	list, err := c.native(t, "podgroups", ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*nativegroup.PodGroup
	for i := range list.Items {
		out = append(out, fromServed(t, &list.Items[i]))
	}
	return out, nil
}

// NativeWorkload reads a Workload in v1beta1's shape.
func (c *Cluster) NativeWorkload(ctx context.Context, t testing.TB, ns, name string) (*nativegroup.Workload, error) {
	u, err := c.native(t, "workloads", ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var in any = &schedulingv1beta1.Workload{}
	if u.GetAPIVersion() == nativegroup.V1alpha2 {
		in = &schedulingv1alpha2.Workload{}
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, in); err != nil {
		t.Fatalf("Workload %s/%s: %v", ns, name, err)
	}
	return nativegroup.WorkloadFrom(in)
}

// WaitNativePodGroupCondition waits until the native PodGroup's condition typ has status
// (and, if message is not "", that message) and returns the condition. typ
// PodGroupScheduled is the version's scheduled condition (PodGroupInitiallyScheduled from
// v1beta1 on).
func (c *Cluster) WaitNativePodGroupCondition(t testing.TB, ns, name, typ string, status metav1.ConditionStatus, message string, timeout time.Duration) metav1.Condition {
	t.Helper()
	return waitGroupCondition(t, "PodGroup.scheduling.k8s.io "+ns+"/"+name, typ, status, message, timeout, func(ctx context.Context) ([]metav1.Condition, bool) {
		pg, err := c.NativePodGroup(ctx, t, ns, name)
		if err != nil {
			return nil, false
		}
		return asPhalanxConditions(pg), true
	})
}

// asPhalanxConditions are a native group's conditions with the version's scheduled
// condition named PodGroupScheduled, as phalanx's CRD names it.
func asPhalanxConditions(pg *nativegroup.PodGroup) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(pg.Status.Conditions))
	for _, cond := range pg.Status.Conditions {
		if cond.Type == nativegroup.ScheduledCondition(pg.APIVersion) {
			cond.Type = v1alpha1.PodGroupScheduled
		}
		out = append(out, cond)
	}
	return out
}

// RecordNativePodGroups records every version of the native PodGroups of ns until the
// test ends, read as phalanx's PodGroups with their metadata and conditions (the native
// status has no phase), the scheduled condition named PodGroupScheduled.
func (c *Cluster) RecordNativePodGroups(t testing.TB, ns string) *PodGroupHistory {
	t.Helper()
	client := c.native(t, "podgroups", ns)
	convert := func(obj any) *v1alpha1.PodGroup {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil
		}
		n := fromServed(t, u)
		return &v1alpha1.PodGroup{ObjectMeta: n.ObjectMeta, Status: v1alpha1.PodGroupStatus{Conditions: asPhalanxConditions(n)}}
	}
	return recordGroups(t, &unstructured.Unstructured{}, convert, &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return client.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.Watch(ctx, o)
		},
	})
}

// toServed writes a PodGroup in v1beta1's shape as the version served.
func toServed(t testing.TB, version string, pg *nativegroup.PodGroup) *unstructured.Unstructured {
	t.Helper()
	var obj any = pg
	if version == nativegroup.V1alpha2 {
		obj = toV1alpha2(pg)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if err := json.Unmarshal(b, &u.Object); err != nil {
		t.Fatalf("PodGroup as %s: %v", version, err)
	}
	u.SetAPIVersion(version)
	u.SetKind(nativegroup.KindPodGroup)
	return u
}

// fromServed reads a served PodGroup into v1beta1's shape.
func fromServed(t testing.TB, u *unstructured.Unstructured) *nativegroup.PodGroup {
	t.Helper()
	var in any = &schedulingv1beta1.PodGroup{}
	if u.GetAPIVersion() == nativegroup.V1alpha2 {
		in = &schedulingv1alpha2.PodGroup{}
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, in); err != nil {
		t.Fatalf("PodGroup %s: %v", u.GetName(), err)
	}
	pg, err := nativegroup.PodGroupFrom(in)
	if err != nil {
		t.Fatal(err)
	}
	pg.APIVersion = u.GetAPIVersion() // v1alpha3 reads as v1beta1's struct
	return pg
}

// toV1alpha2 writes a PodGroup in v1beta1's shape as Kubernetes 1.36's: the fields tests
// set.
func toV1alpha2(pg *nativegroup.PodGroup) *schedulingv1alpha2.PodGroup {
	out := &schedulingv1alpha2.PodGroup{ObjectMeta: pg.ObjectMeta}
	s := &pg.Spec
	if g := s.SchedulingPolicy.Gang; g != nil {
		out.Spec.SchedulingPolicy.Gang = &schedulingv1alpha2.GangSchedulingPolicy{MinCount: g.MinCount}
	}
	if s.SchedulingPolicy.Basic != nil {
		out.Spec.SchedulingPolicy.Basic = &schedulingv1alpha2.BasicSchedulingPolicy{}
	}
	if m := s.DisruptionMode; m != nil {
		mode := schedulingv1alpha2.DisruptionModePod
		if m.All != nil {
			mode = schedulingv1alpha2.DisruptionModePodGroup
		}
		out.Spec.DisruptionMode = &mode
	}
	if r := s.WorkloadRef; r != nil {
		out.Spec.PodGroupTemplateRef = &schedulingv1alpha2.PodGroupTemplateReference{Workload: &schedulingv1alpha2.WorkloadPodGroupTemplateReference{
			WorkloadName: r.WorkloadName, PodGroupTemplateName: r.TemplateName}}
	}
	if c := s.SchedulingConstraints; c != nil {
		out.Spec.SchedulingConstraints = &schedulingv1alpha2.PodGroupSchedulingConstraints{}
		for _, l := range c.Topology {
			out.Spec.SchedulingConstraints.Topology = append(out.Spec.SchedulingConstraints.Topology, schedulingv1alpha2.TopologyConstraint{Key: l.Key})
		}
	}
	for _, rc := range s.ResourceClaims {
		out.Spec.ResourceClaims = append(out.Spec.ResourceClaims, schedulingv1alpha2.PodGroupResourceClaim{
			Name: rc.Name, ResourceClaimName: rc.ResourceClaimName, ResourceClaimTemplateName: rc.ResourceClaimTemplateName})
	}
	out.Spec.PriorityClassName, out.Spec.Priority = s.PriorityClassName, s.Priority
	return out
}
