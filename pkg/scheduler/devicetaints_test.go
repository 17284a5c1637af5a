package scheduler

import (
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A pod whose claim needs a device a DeviceTaintRule taints stays pending; a rule that
// changes no device's taints leaves it where it is, and deleting the tainting rule
// retries it (as kube-scheduler's tracker reports a slice update), and it is bound.
func TestDeviceTaintRuleEvents(t *testing.T) {
	s, store, exec := newDRAScheduler(t)
	clock := s.clock.(*fixedClock)
	rule := func(name, pool string) *resourceapi.DeviceTaintRule {
		return &resourceapi.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: resourceapi.DeviceTaintRuleSpec{DeviceSelector: &resourceapi.DeviceTaintSelector{Pool: &pool},
				Taint: resourceapi.DeviceTaint{Key: "maintenance", Effect: resourceapi.DeviceTaintEffectNoSchedule, TimeAdded: &metav1.Time{}}}}
	}
	s.Resources().UpdateDeviceClass(nil, testutil.DeviceClass("gpu", benchDriver))
	s.AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
	s.Resources().UpdateResourceSlice(nil, testutil.Slice("n1", benchDriver, "gpu", 1))
	s.Resources().UpdateDeviceTaintRule(nil, rule("drain-n1", "n1"))
	cl := testutil.Claim("gpus", "gpu", 1)
	store.put(cl)
	s.Resources().UpdateResourceClaim(nil, cl)
	s.AddPod(testutil.Pod("p").Req("cpu", "1").Claims("gpus").Obj())
	run := func() {
		drain(s)
		exec.run()
		drain(s)
	}
	unschedulable := func() int {
		_, _, u, _ := s.queue.Counts()
		return u
	}
	run()
	if store.binds["default/p"] != "" || unschedulable() != 1 {
		t.Fatalf("tainted device: bound to %q, %d unschedulable; want pending", store.binds["default/p"], unschedulable())
	}
	s.Resources().UpdateDeviceTaintRule(nil, rule("elsewhere", "n9"))
	if unschedulable() != 1 {
		t.Error("a rule tainting no device retried the pod")
	}
	s.Resources().DeleteDeviceTaintRule(rule("drain-n1", "n1"))
	if unschedulable() != 0 {
		t.Error("the rule's deletion did not retry the pod")
	}
	clock.t = clock.t.Add(time.Minute) // past the backoff
	run()
	if store.binds["default/p"] != "n1" {
		t.Errorf("untainted device: bound to %q, want n1", store.binds["default/p"])
	}
}
