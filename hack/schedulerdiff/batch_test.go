package schedulerdiff

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// template makes a pod of a sequence from a generated pod: without ResourceClaims, claimed
// volumes or devices' extended resources (their allocations would have to be assumed too;
// such pods are not signed anyway), and without a nodeName that pins it.
func template(p *v1.Pod) *v1.Pod {
	p = p.DeepCopy()
	p.Spec.ResourceClaims = nil
	p.Spec.NodeName = ""
	var vols []v1.Volume
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil && v.Ephemeral == nil {
			vols = append(vols, v)
		}
	}
	p.Spec.Volumes = vols
	for _, cs := range [][]v1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for i := range cs {
			delete(cs[i].Resources.Requests, draGPU)
			delete(cs[i].Resources.Limits, draGPU)
			cs[i].Resources.Claims = nil
		}
	}
	return p
}

// GenerateSequence makes a cluster (a generated case's) and a sequence of pods: runs of
// replicas of a few templates (the same spec, other names), interleaved, some templates
// signable (no spreading constraints, no pod affinity), some not.
func GenerateSequence(seed uint64) *Sequence {
	c := Generate(seed)
	r := rand.New(rand.NewPCG(seed, 0xba7c4))
	var templates []*v1.Pod
	for k := range 3 {
		t := template(Generate(seed*7 + uint64(k) + 1).Pod)
		if k < 2 || r.Float64() < 0.5 {
			// Mostly signable: no spreading or pod affinity of its own.
			t.Spec.TopologySpreadConstraints = nil
			if t.Spec.Affinity != nil {
				t.Spec.Affinity.PodAffinity, t.Spec.Affinity.PodAntiAffinity = nil, nil
			}
		}
		t.Namespace = c.Pod.Namespace
		templates = append(templates, t)
	}
	s := &Sequence{Case: c}
	n := 4 + r.IntN(12)
	for len(s.Pods) < n {
		t := templates[r.IntN(len(templates))]
		for range 1 + r.IntN(5) {
			p := t.DeepCopy()
			p.Name = fmt.Sprintf("replica-%d", len(s.Pods))
			p.UID = ""
			s.Pods = append(s.Pods, p)
		}
	}
	return s
}

// TestBatchedSequenceAgrees schedules sequences of pods, runs of alike pods interleaved with
// others, through kube-scheduler v1.37.2's framework with its OpportunisticBatch and through
// phalanx's pod cycle, each pod assumed where it went before the next, and compares every
// pod's node and whether it took its batch's hint. Both run the compared plugins with
// PodTopologySpread's defaultingType List (with the system defaults no pod is signed). Ties
// between equal totals are the one thing kube-scheduler leaves to chance: it is given
// phalanx's tie-breakers (UpstreamBatch.Schedule). Sequences with a pod that a listed
// difference concerns are skipped and counted.
func TestBatchedSequenceAgrees(t *testing.T) {
	n := casesFromEnv(t, 300)
	seed := firstSeed(t)
	ctx := t.Context()
	ph := NewPhalanx()
	up, err := NewUpstreamBatch(ctx, bothHave(ph))
	if err != nil {
		t.Fatal(err)
	}
	tl := &seqTally{tally: tally{skipped: map[string]int{}, read: map[string]int{}}}
	counts := map[string]int{}
	cycle := int64(0)
	for s := seed; s < seed+uint64(n); s++ {
		seq := GenerateSequence(s)
		tl.cases++
		skipped := ""
		for _, p := range seq.Pods {
			c := *seq.Case
			c.Pod = p
			if d := SkippedBy(CycleName, &c); d != "" {
				skipped = d
				break
			}
		}
		if skipped != "" {
			tl.skipped[skipped]++
			continue
		}
		var got, want []Step
		for attempt := 1; ; attempt++ {
			// Every sequence starts in a cycle the last one's batch cannot be used by (two
			// cycles later), as another profile's cycle in between would.
			cycle += 2
			var guides []Guide
			got, guides, err = ph.ScheduleBatched(ctx, seq, cycle)
			if err != nil {
				t.Fatalf("seed %d: phalanx: %v", s, err)
			}
			expired := up.Expired()
			want = up.Schedule(ctx, seq, cycle, guides)
			cycle += int64(len(seq.Pods))
			if up.Expired() == expired || attempt == maxAttempts {
				break
			}
			// kube-scheduler's batch expired on the wall clock (the machine is loaded):
			// the sequence is run again.
			tl.rerun++
		}
		diff := ""
		for i := range want {
			if got[i] != want[i] {
				diff += fmt.Sprintf("pod %d: phalanx %+v, kube-scheduler %+v\n", i, got[i], want[i])
			}
			switch {
			case want[i].Failed:
				counts["failed with an error"]++
			case want[i].Hinted:
				counts["hint taken"]++
			case want[i].Node == "":
				counts["not placed"]++
			default:
				counts["scored afresh"]++
			}
		}
		if diff != "" {
			tl.disagreed++
			if tl.disagreed <= maxReported {
				t.Errorf("seed %d: the sequences disagree:\n%spods:\n%s", s, diff, describeSequence(seq))
			}
			continue
		}
		tl.agreed++
	}
	t.Logf("batched sequences: %s; pods by kube-scheduler's outcome %v", tl, counts)
	fmt.Printf("schedulerdiff batched sequences: %s; pods by kube-scheduler's outcome %v\n", tl, counts)
	if counts["hint taken"] == 0 {
		t.Error("no pod took a hint: the sequences do not exercise batching")
	}
}

// maxAttempts is how many times a sequence is run while kube-scheduler's batch expires on
// the wall clock during it (UpstreamBatch.Expired); the last run is compared.
const maxAttempts = 5

// seqTally is a tally of sequences, with the runs done again because kube-scheduler's
// batch expired on the wall clock.
type seqTally struct {
	tally
	rerun int
}

func (t *seqTally) String() string {
	return fmt.Sprintf("%s, run again for a wall-clock expiry %d", t.tally.String(), t.rerun)
}

func describeSequence(s *Sequence) string {
	out := describe(s.Case)
	for i, p := range s.Pods {
		out += fmt.Sprintf("pod %d: %s requests %v affinity %v spread %v tolerations %v selector %v\n", i, p.Name,
			p.Spec.Containers[0].Resources.Requests, p.Spec.Affinity, p.Spec.TopologySpreadConstraints, p.Spec.Tolerations, p.Spec.NodeSelector)
	}
	return out
}
