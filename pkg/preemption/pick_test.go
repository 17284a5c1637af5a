package preemption

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	policyv1 "k8s.io/api/policy/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func victim(name string, prio int32, started time.Duration) *framework.PodInfo {
	p := testutil.Pod(name).Priority(prio).Req("cpu", "1").Info()
	t := metav1.NewTime(time.Unix(1000, 0).Add(started))
	p.Pod.Status.StartTime = &t
	return p
}

// cand is a candidate whose victims are single-pod units; pdb of them violate a budget.
func cand(node string, pdb int, victims ...*framework.PodInfo) *Candidate {
	units := make([]*Unit, len(victims))
	for i, v := range victims {
		units[i] = &Unit{Key: v.Key, Pods: []*framework.PodInfo{v}, Priority: v.Priority, Start: v.StartTime()}
	}
	SortUnits(units)
	c := newCandidate(framework.NewNodeInfo(testutil.Node(node).Obj()), units, nil)
	c.Cost.Violations = pdb
	return c
}

func TestPickOrder(t *testing.T) {
	tests := []struct {
		name  string
		cands []*Candidate
		want  string
	}{
		{"a node needing no victim wins", []*Candidate{cand("a", 0, victim("x", 1, 0)), cand("b", 0)}, "b"},
		{"fewer PDB violations", []*Candidate{cand("a", 1, victim("x", 1, 0)), cand("b", 0, victim("y", 50, 0), victim("z", 50, 0))}, "b"},
		{"lower highest priority", []*Candidate{cand("a", 0, victim("x", 10, 0)), cand("b", 0, victim("y", 5, 0), victim("z", 5, 0))}, "b"},
		{"lower sum of priorities", []*Candidate{cand("a", 0, victim("x", 5, 0), victim("y", 5, 0)), cand("b", 0, victim("z", 5, 0), victim("w", 1, 0))}, "b"},
		{"negative priorities still count", []*Candidate{cand("a", 0, victim("x", -5, 0), victim("y", -5, 0)), cand("b", 0, victim("z", -5, 0))}, "b"},
		{"fewer victims", []*Candidate{cand("a", 0, victim("x", 0, 0), victim("y", 0, 0)), cand("b", 0, victim("z", 0, 0))}, "b"},
		{"latest start of the highest-priority victims", []*Candidate{cand("a", 0, victim("x", 3, time.Minute)), cand("b", 0, victim("y", 3, time.Hour))}, "b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := pick(tc.cands).Node.Name; got != tc.want {
				t.Errorf("picked %s, want %s", got, tc.want)
			}
		})
	}
}

// Ties are broken by node name, not by the order of the list or a random draw: the same
// cluster listed in another order, or a one-member gang beside a pod, decides alike.
func TestPickTieBreakIsByNodeName(t *testing.T) {
	cands := []*Candidate{cand("c", 0, victim("x", 1, 0)), cand("a", 0, victim("y", 1, 0)), cand("b", 0, victim("z", 1, 0))}
	for i := range cands {
		rotated := append(append([]*Candidate{}, cands[i:]...), cands[:i]...)
		if got := pick(rotated).Node.Name; got != "a" {
			t.Errorf("rotation %d picked %s, want a", i, got)
		}
	}
}

func TestImportance(t *testing.T) {
	unitOf := func(p *framework.PodInfo) *Unit {
		return &Unit{Key: p.Key, Pods: []*framework.PodInfo{p}, Priority: p.Priority, QOS: qosRank[p.QOS], Start: p.StartTime()}
	}
	guaranteed := unitOf(testutil.Pod("g").Priority(5).Lim("cpu", "1", "memory", "1Gi").Info())
	burstable := unitOf(testutil.Pod("b").Priority(5).Req("cpu", "1").Info())
	besteffort := unitOf(testutil.Pod("e").Priority(5).Info())
	higher := unitOf(testutil.Pod("h").Priority(6).Info())
	group := &Unit{Key: "PodGroup:default/grp", Group: true, Priority: 5, Pods: []*framework.PodInfo{testutil.Pod("m").Priority(5).Info()}}
	units := []*Unit{besteffort, burstable, group, higher, guaranteed}
	SortUnits(units)
	var got []string
	for _, u := range units {
		got = append(got, u.Key)
	}
	if want := []string{higher.Key, group.Key, guaranteed.Key, burstable.Key, besteffort.Key}; !equal(got, want) {
		t.Errorf("order %v, want %v (priority, then groups before single pods, then Guaranteed > Burstable > BestEffort)", got, want)
	}
	early, late := unitOf(victim("early", 1, 0)), unitOf(victim("late", 1, time.Hour))
	if !moreImportantUnit(early, late) || moreImportantUnit(late, early) {
		t.Error("an earlier start must be more important")
	}
}

func TestSplitByPDB(t *testing.T) {
	pdb := func(allowed int32, app string, disrupted ...string) *framework.PDBInfo {
		d := map[string]metav1.Time{}
		for _, n := range disrupted {
			d[n] = metav1.Now()
		}
		return &framework.PDBInfo{
			PDB: &policyv1.PodDisruptionBudget{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: app},
				Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, DisruptedPods: d},
			},
			Selector: labels.SelectorFromSet(labels.Set{"app": app}),
		}
	}
	a1 := testutil.Pod("a1").Labels("app", "a").Info()
	a2 := testutil.Pod("a2").Labels("app", "a").Info()
	a3 := testutil.Pod("a3").Labels("app", "a").Info()
	other := testutil.Pod("o").Labels("app", "other").Info()
	elsewhere := testutil.Pod("x").Namespace("prod").Labels("app", "a").Info()
	tests := []struct {
		name          string
		pdbs          []*framework.PDBInfo
		pods          []*framework.PodInfo
		wantViolating []string
	}{
		{"no budgets", nil, []*framework.PodInfo{a1, a2}, nil},
		{"allowance spent in order", []*framework.PDBInfo{pdb(1, "a")}, []*framework.PodInfo{a1, a2, a3}, []string{"a2", "a3"}},
		{"other apps and namespaces are not covered", []*framework.PDBInfo{pdb(0, "a")}, []*framework.PodInfo{other, elsewhere, a1}, []string{"a1"}},
		{"already disrupted pods do not spend", []*framework.PDBInfo{pdb(0, "a", "a1")}, []*framework.PodInfo{a1, a2}, []string{"a2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			violating, ok := splitByPDB(tc.pods, tc.pdbs)
			var got []string
			for _, p := range violating {
				got = append(got, p.Pod.Name)
			}
			if !equal(got, tc.wantViolating) || len(violating)+len(ok) != len(tc.pods) {
				t.Errorf("violating %v, want %v", got, tc.wantViolating)
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
