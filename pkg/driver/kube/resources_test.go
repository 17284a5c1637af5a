package kube

import (
	"context"
	"slices"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// DeviceTaintRules are read from resource.k8s.io/v1 when the server serves them there
// (Kubernetes 1.37 with DRADeviceTaintRules on), as kube-scheduler reads them.
func TestResolveTaintRules(t *testing.T) {
	resources := func(gv string, names ...string) *metav1.APIResourceList {
		l := &metav1.APIResourceList{GroupVersion: gv}
		for _, n := range names {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: n})
		}
		return l
	}
	for _, tc := range []struct {
		name   string
		served []*metav1.APIResourceList
		want   bool
	}{
		{"1.37", []*metav1.APIResourceList{resources("resource.k8s.io/v1", "resourceslices", "devicetaintrules", "devicetaintrules/status")}, true},
		{"gate off", []*metav1.APIResourceList{resources("resource.k8s.io/v1", "resourceslices")}, false},
		{"a beta version only", []*metav1.APIResourceList{resources("resource.k8s.io/v1", "resourceslices"), resources("resource.k8s.io/v1beta2", "devicetaintrules")}, false},
		{"no DRA", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: tc.served}}
			got, err := resolveTaintRules(context.Background(), disc, klog.Background())
			if err != nil || got != tc.want {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// The DeviceTaintRule informer comes after the ResourceSlices', before the claims' and
// the pods', with its handler.
func TestTaintRuleInformer(t *testing.T) {
	d, err := New(validOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.addTaintRuleInformer(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, inf := range d.informers {
		names = append(names, inf.name)
	}
	i := slices.Index(names, "devicetaintrules")
	if i < 1 || names[i-1] != "resourceslices" || names[len(names)-1] != "pods" || len(d.handlers) != len(d.informers) {
		t.Errorf("informers %v (%d handlers), want devicetaintrules after resourceslices, pods last", names, len(d.handlers))
	}
	if d.standalone("devicetaintrules") {
		t.Error("the DeviceTaintRule informer is run by the driver, not the factory")
	}
	// Its handler posts the rule to the loop, which records it; a deletion (as a
	// tombstone) forgets it.
	h := d.handlers[i]
	rule := &resourceapi.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "drain"}}
	h.OnAdd(rule, true)
	d.sched.DrainInbox()
	if d.sched.Cache().Devices().DeviceTaintRule("drain") == nil {
		t.Error("the added rule is not in the cache")
	}
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "drain", Obj: rule})
	d.sched.DrainInbox()
	if d.sched.Cache().Devices().DeviceTaintRule("drain") != nil {
		t.Error("the deleted rule is still in the cache")
	}
}
