package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// The devices phalanx's cache hands the allocator carry the same taints as those of
// kube-scheduler's slice tracker (k8s.io/dynamic-resource-allocation/resourceslice/tracker,
// which the cache cannot use: it is built on informers), for rules selecting by driver,
// pool and device.
func TestDeviceTaintsAsUpstreamTracker(t *testing.T) {
	str := func(s string) *string { return &s }
	rule := func(name string, sel *resourceapi.DeviceTaintSelector, effect resourceapi.DeviceTaintEffect) *resourceapi.DeviceTaintRule {
		return &resourceapi.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourceapi.DeviceTaintRuleSpec{
			DeviceSelector: sel, Taint: resourceapi.DeviceTaint{Key: "example.com/" + name, Value: "v", Effect: effect, TimeAdded: &metav1.Time{}}}}
	}
	noSched := resourceapi.DeviceTaintEffectNoSchedule
	for _, tc := range []struct {
		name  string
		rules []*resourceapi.DeviceTaintRule
	}{
		{"none", nil},
		{"no selector", []*resourceapi.DeviceTaintRule{rule("a", nil, noSched)}},
		{"empty selector", []*resourceapi.DeviceTaintRule{rule("a", &resourceapi.DeviceTaintSelector{}, noSched)}},
		{"driver", []*resourceapi.DeviceTaintRule{rule("a", &resourceapi.DeviceTaintSelector{Driver: str("nic.example.com")}, noSched)}},
		{"pool across drivers", []*resourceapi.DeviceTaintRule{rule("a", &resourceapi.DeviceTaintSelector{Pool: str("n1")}, resourceapi.DeviceTaintEffectNoExecute)}},
		{"device in every pool", []*resourceapi.DeviceTaintRule{rule("a", &resourceapi.DeviceTaintSelector{Device: str("gpu-1")}, noSched)}},
		{"all three", []*resourceapi.DeviceTaintRule{rule("a", &resourceapi.DeviceTaintSelector{Driver: str("gpu.example.com"), Pool: str("n2"), Device: str("gpu-0")}, noSched)}},
		{"mismatch", []*resourceapi.DeviceTaintRule{rule("a", &resourceapi.DeviceTaintSelector{Driver: str("nic.example.com"), Device: str("gpu-0")}, noSched)}},
		{"several on one device", []*resourceapi.DeviceTaintRule{
			rule("a", &resourceapi.DeviceTaintSelector{Pool: str("n1"), Device: str("gpu-0")}, noSched),
			rule("b", &resourceapi.DeviceTaintSelector{Pool: str("n1")}, resourceapi.DeviceTaintEffectNone)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own := testutil.Slice("n1", "gpu.example.com", "gpu", 2)
			own.Spec.Devices[1].Taints = []resourceapi.DeviceTaint{{Key: "own", Effect: noSched}}
			sls := []*resourceapi.ResourceSlice{own, testutil.Slice("n2", "gpu.example.com", "gpu", 2), testutil.Slice("n1", "nic.example.com", "nic", 1)}

			c := cache.New()
			var objs []runtime.Object
			for _, s := range sls {
				c.Devices().SetResourceSlice(s)
				objs = append(objs, s)
			}
			for _, r := range tc.rules {
				c.Devices().SetDeviceTaintRule(r)
				objs = append(objs, r)
			}
			want := upstreamTaints(t, objs)
			got := taintsOf(c.DRA().Slices())
			if got != want {
				t.Errorf("phalanx:\n%s\nkube-scheduler's tracker:\n%s", got, want)
			}
		})
	}
}

// upstreamTaints runs kube-scheduler's slice tracker on the objects and lists the taints
// of the slices it hands the allocator.
func upstreamTaints(t *testing.T, objs []runtime.Object) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := informers.NewSharedInformerFactory(fake.NewClientset(objs...), 0)
	tr, err := tracker.StartTracker(ctx, tracker.Options{EnableDeviceTaintRules: true,
		SliceInformer: f.Resource().V1().ResourceSlices(), TaintInformer: f.Resource().V1().DeviceTaintRules()})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Stop()
	f.Start(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), tr.HasSynced) {
		t.Fatal("the tracker did not sync")
	}
	sls, err := tr.ListPatchedResourceSlices()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(sls, func(a, b *resourceapi.ResourceSlice) int { return strings.Compare(a.Name, b.Name) })
	// The tracker applies rules in its informer's order; the allocator's decision does
	// not depend on the order of a device's taints, so compare them sorted.
	return taintsOf(sls)
}

func taintsOf(sls []*resourceapi.ResourceSlice) string {
	var b strings.Builder
	for _, s := range sls {
		for _, d := range s.Spec.Devices {
			var ts []string
			for _, tt := range d.Taints {
				ts = append(ts, fmt.Sprintf("%s=%s:%s@%v", tt.Key, tt.Value, tt.Effect, tt.TimeAdded))
			}
			slices.Sort(ts)
			fmt.Fprintf(&b, "%s/%s %v\n", s.Name, d.Name, ts)
		}
	}
	return b.String()
}
