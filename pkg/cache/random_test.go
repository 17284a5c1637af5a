package cache

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// The randomized cache test drives the cache through random sequences of everything the
// scheduler does to it (bound pods arriving and leaving, assume, forget, confirm,
// nominations, nodes coming and going, nested checkpoints with simulated adds and removals,
// rollbacks) and checks after every step that:
//   - Verify passes: every index equals one rebuilt from scratch;
//   - the pods and their nodes, and each node's usage, equal a plain model kept beside it;
//   - a rollback restores the exact state (positions included) the checkpoint saw.

// randomClaims is how many ResourceClaims the random pods share.
const randomClaims = 5

// model is the expected placement of every pod in the cache, by key.
type model map[string]modelPod

type modelPod struct {
	node  string
	pi    *framework.PodInfo
	group string
}

type randomRun struct {
	t      testing.TB
	rng    *rand.Rand
	c      *Cache
	m      model
	next   int
	nodes  []string // live node names
	gone   []string // removed node names, may come back
	marks  []savedState
	pendng []*framework.PodInfo // pending pods: may be assumed, nominated or simulated
}

type savedState struct {
	cp    framework.Checkpoint
	m     model
	state state
}

func (m model) clone() model {
	out := make(model, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (r *randomRun) newPod() *framework.PodInfo {
	r.next++
	p := testPod(r.next)
	p.Name = fmt.Sprintf("q%d", r.next)
	if r.rng.IntN(3) == 0 {
		p.Labels[v1alpha1.LabelPodGroup] = fmt.Sprintf("g%d", r.rng.IntN(3))
	}
	// Some pods use claims (shared among pods, allocated or not) and volume claims, so
	// that the cache's accounting of who uses them, and of the devices freed when the last
	// user goes in a simulation, is driven too.
	if r.rng.IntN(3) == 0 {
		name := fmt.Sprintf("c%d", r.rng.IntN(randomClaims))
		p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "c", ResourceClaimName: &name}}
	}
	if r.rng.IntN(4) == 0 {
		p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{
			PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: fmt.Sprintf("v%d", r.rng.IntN(3))},
		}}}
	}
	return framework.NewPodInfo(p)
}

func (r *randomRun) randomPod() (string, modelPod, bool) {
	if len(r.m) == 0 {
		return "", modelPod{}, false
	}
	keys := make([]string, 0, len(r.m))
	for k := range r.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	k := keys[r.rng.IntN(len(keys))]
	return k, r.m[k], true
}

func (r *randomRun) simulating() bool { return len(r.marks) > 0 }

// step performs one random operation; the real ones only outside simulations, as the
// scheduling loop applies cluster events only between cycles.
func (r *randomRun) step() string {
	c := r.c
	switch op := r.rng.IntN(14); {
	case op == 0 && !r.simulating():
		if len(r.gone) > 0 && r.rng.IntN(2) == 0 {
			name := r.gone[0]
			r.gone = r.gone[1:]
			c.Nodes().AddNode(node(name))
			r.nodes = append(r.nodes, name)
			return "node back " + name
		}
		name := "n" + strconv.Itoa(len(r.nodes)+len(r.gone))
		c.Nodes().AddNode(node(name))
		r.nodes = append(r.nodes, name)
		return "add node " + name
	case op == 1 && !r.simulating() && len(r.nodes) > 1:
		i := r.rng.IntN(len(r.nodes))
		name := r.nodes[i]
		r.nodes = slices.Delete(r.nodes, i, i+1)
		r.gone = append(r.gone, name)
		c.Nodes().RemoveNode(name)
		return "remove node " + name
	case op <= 3 && !r.simulating():
		// A bound pod arrives; sometimes on a node the cache has not seen.
		pi := r.newPod()
		name := r.nodes[r.rng.IntN(len(r.nodes))]
		if r.rng.IntN(10) == 0 {
			name = "unseen" + strconv.Itoa(r.rng.IntN(2))
		}
		pi.Pod.Spec.NodeName = name
		if err := c.Nodes().AddBoundPod(pi); err != nil {
			r.t.Fatal(err)
		}
		r.m[pi.Key] = modelPod{node: name, pi: pi, group: pi.Group}
		return "bound " + pi.Key + " on " + name
	case op == 4 && !r.simulating():
		k, mp, ok := r.randomPod()
		if !ok {
			return "noop"
		}
		c.Nodes().RemoveBoundPod(k)
		delete(r.m, k)
		return "delete " + k + " from " + mp.node
	case op == 5 && !r.simulating():
		// The informer reports a pod the cache has (bound or assumed) on a node, possibly
		// another: a fresh PodInfo replaces the old.
		k, mp, ok := r.randomPod()
		if !ok {
			return "noop"
		}
		pod := mp.pi.Pod.DeepCopy()
		pod.Spec.NodeName = r.nodes[r.rng.IntN(len(r.nodes))]
		pi := framework.NewPodInfo(pod)
		if err := c.Nodes().AddBoundPod(pi); err != nil {
			r.t.Fatal(err)
		}
		r.m[k] = modelPod{node: pod.Spec.NodeName, pi: pi, group: pi.Group}
		return "informer " + k + " on " + pod.Spec.NodeName
	case op == 6 && !r.simulating():
		pi := r.newPod()
		r.pendng = append(r.pendng, pi)
		if r.rng.IntN(2) == 0 {
			c.Nominations().Nominate(pi, r.nodes[r.rng.IntN(len(r.nodes))])
		}
		return "pending " + pi.Key
	case op == 7 && !r.simulating() && len(r.pendng) > 0:
		pi := r.pendng[r.rng.IntN(len(r.pendng))]
		if _, in := r.m[pi.Key]; in {
			if err := c.Nodes().AssumePod(pi, r.nodes[0]); err == nil {
				r.t.Fatalf("assumed %s twice", pi.Key)
			}
			return "assume twice refused"
		}
		name := r.nodes[r.rng.IntN(len(r.nodes))]
		// A pod may be bound while still nominated (the informer reports it before its
		// nomination is cleared, or it was bound by someone else): the nominated adds
		// must then leave it out, whatever they found in earlier cycles.
		keep := r.rng.IntN(2) == 0
		if !keep {
			c.Nominations().ClearNomination(pi.Key)
		}
		if r.rng.IntN(2) == 0 {
			pod := pi.Pod.DeepCopy()
			pod.Spec.NodeName = name
			bound := framework.NewPodInfo(pod)
			if err := c.Nodes().AddBoundPod(bound); err != nil {
				r.t.Fatal(err)
			}
			r.m[pi.Key] = modelPod{node: name, pi: bound, group: bound.Group}
			return fmt.Sprintf("bound pending %s on %s (nomination kept: %v)", pi.Key, name, keep)
		}
		if err := c.Nodes().AssumePod(pi, name); err != nil {
			r.t.Fatal(err)
		}
		r.m[pi.Key] = modelPod{node: name, pi: pi, group: pi.Group}
		return fmt.Sprintf("assume %s on %s (nomination kept: %v)", pi.Key, name, keep)
	case op == 8 && !r.simulating():
		k, mp, ok := r.randomPod()
		if !ok {
			return "noop"
		}
		c.Nodes().ForgetPod(k)
		if mp.pi.Assumed || (mp.pi == c.nodes.pods[k] && false) {
			r.t.Fatalf("forget left %s assumed", k)
		}
		if c.nodes.pods[k] == nil {
			delete(r.m, k)
		}
		return "forget " + k
	case op == 9 && len(r.marks) < 3:
		r.marks = append(r.marks, savedState{cp: c.Checkpoint(), m: r.m.clone(), state: capture(c)})
		return "checkpoint"
	case op == 10 && r.simulating():
		// Roll back the newest checkpoint, or sometimes an older one (closing those after
		// it), and sometimes twice.
		i := len(r.marks) - 1
		if r.rng.IntN(3) == 0 {
			i = r.rng.IntN(len(r.marks))
		}
		saved := r.marks[i]
		r.marks = r.marks[:i]
		c.Rollback(saved.cp)
		if r.rng.IntN(4) == 0 {
			c.Rollback(saved.cp) // a stray second rollback changes nothing
		}
		r.m = saved.m
		if got := capture(c); !reflect.DeepEqual(saved.state, got) {
			r.t.Fatalf("rollback did not restore the state: %s", firstDifference(saved.state, got))
		}
		return "rollback"
	case op == 11 && r.simulating():
		// A simulated victim leaves.
		k, mp, ok := r.randomPod()
		if !ok {
			return "noop"
		}
		c.RemovePod(mp.pi)
		delete(r.m, k)
		return "simulate remove " + k
	case op == 12 && r.simulating() && len(r.pendng) > 0:
		// A pending pod (a preemptor, a nominated pod, a gang member) is placed.
		pi := r.pendng[r.rng.IntN(len(r.pendng))]
		if _, in := r.m[pi.Key]; in {
			return "noop"
		}
		name := r.nodes[r.rng.IntN(len(r.nodes))]
		c.AddPod(pi, name)
		r.m[pi.Key] = modelPod{node: name, pi: pi, group: pi.Group}
		return "simulate add " + pi.Key + " on " + name
	case op == 13 && r.simulating():
		// Nominated pods are added for a cycle the way the scheduler does.
		// Some cycles leave some out (their own members, lower priorities).
		skip := r.rng.IntN(3)
		include := func(pi *framework.PodInfo) bool { return skip == 0 || len(pi.Key)%skip != 0 }
		added := 0
		c.Nominations().ForEachNominated(func(pi *framework.PodInfo, name string) {
			if !include(pi) || c.Get(name) == nil {
				return
			}
			if _, in := r.m[pi.Key]; in {
				return
			}
			r.m[pi.Key] = modelPod{node: name, pi: pi, group: pi.Group}
			added++
		})
		c.AddNominatedPods(include)
		return fmt.Sprintf("add %d nominated", added)
	}
	return "noop"
}

// check compares the cache with the model.
func (r *randomRun) check(what string) {
	c := r.c
	if err := c.Verify(); err != nil {
		r.t.Fatalf("after %s: %v", what, err)
	}
	if len(c.nodes.pods) != len(r.m) {
		r.t.Fatalf("after %s: cache has %d pods, model %d", what, len(c.nodes.pods), len(r.m))
	}
	usage := map[string]resource.Vector{}
	for k, mp := range r.m {
		pi := c.nodes.pods[k]
		if pi != mp.pi || pi.NodeName != mp.node {
			r.t.Fatalf("after %s: pod %s on %q, model says %q", what, k, pi.NodeName, mp.node)
		}
		v := usage[mp.node]
		v.Add(&pi.Requests.Vector)
		usage[mp.node] = v
	}
	for _, name := range r.nodes {
		if n := c.Get(name); n == nil || n.Requested != usage[name] {
			r.t.Fatalf("after %s: node %s usage differs from the model", what, name)
		}
	}
	if r.simulating() {
		return
	}
	members := map[string]int{}
	for _, mp := range r.m {
		if mp.group != "" {
			members["ns/"+mp.group]++
		}
	}
	for g, n := range members {
		if got := len(c.GroupMembers(g)); got != n {
			r.t.Fatalf("after %s: group %s has %d members, model %d", what, g, got, n)
		}
	}
}

func checkRandomSequence(t testing.TB, seed uint64, steps int) {
	r := &randomRun{t: t, rng: rand.New(rand.NewPCG(seed, 99)), c: New(), m: model{}}
	for i := range 3 {
		name := "n" + strconv.Itoa(i)
		r.c.Nodes().AddNode(node(name))
		r.nodes = append(r.nodes, name)
	}
	// Claims c0..: the even ones allocated a device each (c0 and c2 share one).
	for i := range randomClaims {
		cl := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("c%d", i)}}
		if i%2 == 0 {
			cl.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
				Results: []resourceapi.DeviceRequestAllocationResult{{Driver: "d", Pool: "p", Device: fmt.Sprintf("dev%d", i%4)}},
			}}
		}
		r.c.Devices().SetResourceClaim(cl)
	}
	var trail []string
	for range steps {
		what := r.step()
		trail = append(trail, what)
		if len(trail) > 12 {
			trail = trail[1:]
		}
		r.check(fmt.Sprintf("%s (seed %d, last steps %v)", what, seed, trail))
	}
	for len(r.marks) > 0 {
		saved := r.marks[0]
		r.marks = nil
		r.c.Rollback(saved.cp)
		r.m = saved.m
		r.check("final rollback")
	}
	if r.c.OpenCheckpoints() != 0 || len(r.c.undo.ops) != 0 {
		t.Fatalf("seed %d: %d checkpoints open, %d undo records at the end", seed, r.c.OpenCheckpoints(), len(r.c.undo.ops))
	}
}

// TestRandomCacheOperations runs 2,000 random sequences (CACHE_RANDOM_SEQUENCES sets
// another count; `make fuzz` explores further with FuzzCacheOperations).
func TestRandomCacheOperations(t *testing.T) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("CACHE_RANDOM_SEQUENCES")); err == nil {
		n = v
	}
	if testing.Short() {
		n = 200
	}
	for seed := range uint64(n) {
		checkRandomSequence(t, seed, 150)
	}
}

func FuzzCacheOperations(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint16(200))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		checkRandomSequence(t, seed, int(steps%1000))
	})
}
