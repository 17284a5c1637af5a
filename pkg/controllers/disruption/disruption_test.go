package disruption

import (
	"iter"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type pod struct {
	name, namespace, app string
	node                 string
	phase                v1.PodPhase
	terminating          bool
}

func podsOf(list []pod) iter.Seq2[*v1.Pod, bool] {
	return func(yield func(*v1.Pod, bool) bool) {
		for _, p := range list {
			obj := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: p.namespace, Labels: map[string]string{"app": p.app}},
				Spec:       v1.PodSpec{NodeName: p.node},
				Status:     v1.PodStatus{Phase: p.phase},
			}
			if !yield(obj, p.terminating) {
				return
			}
		}
	}
}

func budget(minAvailable, maxUnavailable *intstr.IntOrString) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 3},
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			MinAvailable:   minAvailable,
			MaxUnavailable: maxUnavailable,
		},
	}
}

func TestStatus(t *testing.T) {
	running := func(name string) pod {
		return pod{name: name, namespace: "default", app: "web", node: "n1", phase: v1.PodRunning}
	}
	three := []pod{running("a"), running("b"), running("c")}
	pending := pod{name: "p", namespace: "default", app: "web", phase: v1.PodPending}
	leaving := running("l")
	leaving.terminating = true
	elsewhere := running("x")
	elsewhere.namespace = "other"
	other := running("o")
	other.app = "db"
	one, half, all := intstr.FromInt32(1), intstr.FromString("50%"), intstr.FromString("100%")
	tests := []struct {
		name                                string
		pdb                                 *policyv1.PodDisruptionBudget
		pods                                []pod
		expected, healthy, desired, allowed int32
	}{
		{"no budget numbers: every selected pod", budget(nil, nil), three, 3, 3, 3, 0},
		{"minAvailable 1", budget(&one, nil), three, 3, 3, 1, 2},
		{"maxUnavailable 1", budget(nil, &one), three, 3, 3, 2, 1},
		{"minAvailable 50% rounds up", budget(&half, nil), three, 3, 3, 2, 1},
		{"maxUnavailable 100%", budget(nil, &all), three, 3, 3, 0, 3},
		{"pending and terminating pods are expected, not healthy", budget(&one, nil), append([]pod{pending, leaving}, three...), 5, 3, 1, 2},
		{"other namespaces and labels are not selected", budget(&one, nil), append([]pod{elsewhere, other}, three...), 3, 3, 1, 2},
		{"fewer healthy than desired allows nothing", budget(&one, nil), []pod{pending}, 1, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Status(tt.pdb, podsOf(tt.pods))
			if st.ExpectedPods != tt.expected || st.CurrentHealthy != tt.healthy || st.DesiredHealthy != tt.desired ||
				st.DisruptionsAllowed != tt.allowed || st.ObservedGeneration != 3 {
				t.Errorf("status %+v, want expected %d healthy %d desired %d allowed %d", st, tt.expected, tt.healthy, tt.desired, tt.allowed)
			}
		})
	}
}

// Sync tells of a budget only when pods changed and its status did.
func TestSyncTellsChanges(t *testing.T) {
	pods := []pod{{name: "a", namespace: "default", app: "web", node: "n1", phase: v1.PodRunning}}
	var told []*policyv1.PodDisruptionBudget
	c := New(func() iter.Seq2[*v1.Pod, bool] { return podsOf(pods) }, func(_, pdb *policyv1.PodDisruptionBudget) { told = append(told, pdb) })
	one := intstr.FromInt32(1)
	c.Add(budget(nil, &one))
	c.Sync()
	if len(told) != 1 || told[0].Status.DisruptionsAllowed != 1 {
		t.Fatalf("after Add: told %v, want one status with 1 disruption allowed", told)
	}
	c.Sync()
	if len(told) != 1 {
		t.Fatalf("a Sync without a change told %d times", len(told)-1)
	}
	pods[0].terminating = true
	c.PodsChanged()
	c.Sync()
	if len(told) != 2 || told[1].Status.DisruptionsAllowed != 0 || told[1].Status.CurrentHealthy != 0 {
		t.Fatalf("after the pod's deletion: told %v, want 0 healthy and 0 allowed", told)
	}
	c.PodsChanged()
	c.Sync()
	if len(told) != 2 {
		t.Errorf("an unchanged status was told again")
	}
}
