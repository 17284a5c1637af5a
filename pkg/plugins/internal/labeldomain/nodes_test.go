package labeldomain

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// The randomized Nodes test follows a list of nodes through random steps (nodes added,
// removed, re-added, relabelled, renamed, given an equal new object, reordered; or
// nothing) and checks after each that Follow returned the previous Nodes, a copy sharing
// its keys or a fresh one exactly when a reference that compares the lists says so, and
// that the domains of the keys in use in the new Nodes, and of every key in the previous
// one, agree with domains numbered from scratch from the node objects each Nodes was made
// from.

var randomKeys = []string{"zone", "rack", "host", "spare"}

type followOutcome int

const (
	followSelf followOutcome = iota
	followShared
	followFresh
)

func (o followOutcome) String() string { return [...]string{"self", "shared", "fresh"}[o] }

// followed is a Nodes with what the reference knows of it: the lists it was made from and
// the keys built on it so far (those Follow shares when it shares).
type followed struct {
	n     *Nodes
	infos []*framework.NodeInfo
	nodes []*v1.Node
	built map[string]bool
}

func TestNodesFollowRandom(t *testing.T) {
	for seed := range uint64(40) {
		for _, opts := range []Options{{}, {EmptyDomain: true}} {
			t.Run(fmt.Sprintf("seed%d/empty=%v", seed, opts.EmptyDomain), func(t *testing.T) {
				runFollow(t, rand.New(rand.NewPCG(seed, 31)), opts)
			})
		}
	}
}

func runFollow(t *testing.T, rng *rand.Rand, opts Options) {
	r := &followRun{rng: rng}
	var infos []*framework.NodeInfo
	for range 1 + rng.IntN(6) {
		infos = append(infos, framework.NewNodeInfo(r.newNode()))
	}
	prev := r.record(NewNodes(positioned(infos), opts))
	r.useKeys(t, prev)
	seen := map[followOutcome]int{}
	for step := range 300 {
		what := r.change(&infos)
		next := prev.n.Follow(positioned(infos))
		want := expectedOutcome(prev, infos)
		got := outcomeOf(prev, next)
		if got != want {
			t.Fatalf("step %d (%s): Follow gave %s, want %s", step, what, got, want)
		}
		seen[got]++
		cur := prev
		if got != followSelf {
			cur = r.record(next)
			if got == followShared {
				for k := range prev.built {
					cur.built[k] = true
				}
			}
		}
		checkLists(t, step, cur, infos)
		r.useKeys(t, cur)
		// Only the keys in use are checked in cur, lest checking build them all (which
		// would leave Follow no key to share or to ignore).
		for _, k := range randomKeys {
			if cur.built[k] {
				checkKey(t, step, cur, k)
			}
		}
		checkDomainOf(t, step, cur, r)
		if prev != cur {
			// The previous Nodes, which a cycle may still hold, is not followed again:
			// every key of it, built now, must still be of its own nodes.
			for _, k := range randomKeys {
				checkKey(t, step, prev, k)
			}
		}
		prev = cur
	}
	for _, o := range []followOutcome{followSelf, followShared, followFresh} {
		if seen[o] < 10 {
			t.Errorf("Follow gave %s only %d times in 300 steps: the steps do not exercise it", o, seen[o])
		}
	}
}

type followRun struct {
	rng  *rand.Rand
	next int
}

// newNode is a node with random values for some of the keys, and a label no key uses.
func (r *followRun) newNode() *v1.Node {
	r.next++
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", r.next), Labels: r.labels()}}
}

func (r *followRun) labels() map[string]string {
	labels := map[string]string{"unused": fmt.Sprint(r.rng.IntN(3))}
	for _, k := range randomKeys {
		if r.rng.IntN(4) > 0 {
			labels[k] = []string{"a", "b", "c", ""}[r.rng.IntN(4)]
		}
	}
	return labels
}

// change makes one random change to the list (or none) and says what it did.
func (r *followRun) change(infos *[]*framework.NodeInfo) string {
	list := *infos
	if len(list) == 0 {
		*infos = append(list, framework.NewNodeInfo(r.newNode()))
		return "add to an empty list"
	}
	i := r.rng.IntN(len(list))
	old := list[i].Node()
	switch r.rng.IntN(10) {
	case 0:
		*infos = slices.Insert(list, r.rng.IntN(len(list)+1), framework.NewNodeInfo(r.newNode()))
		return "add"
	case 1:
		*infos = slices.Delete(list, i, i+1)
		return "remove"
	case 2:
		j := r.rng.IntN(len(list))
		list[i], list[j] = list[j], list[i]
		return "swap"
	case 3:
		n := old.DeepCopy()
		n.Labels = r.labels()
		list[i].SetNode(n)
		return "relabel"
	case 4:
		n := old.DeepCopy()
		k := randomKeys[r.rng.IntN(len(randomKeys))]
		if r.rng.IntN(2) == 0 {
			delete(n.Labels, k)
		} else {
			n.Labels[k] = []string{"a", "b", "c", "", "d"}[r.rng.IntN(5)]
		}
		list[i].SetNode(n)
		return "set one key"
	case 5:
		n := old.DeepCopy()
		n.Labels["unused"] += "x"
		list[i].SetNode(n)
		return "change a label no key uses"
	case 6, 7:
		list[i].SetNode(old.DeepCopy())
		return "an equal new object"
	case 8:
		if r.rng.IntN(3) == 0 {
			n := old.DeepCopy()
			r.next++
			n.Name = fmt.Sprintf("n%d", r.next)
			list[i].SetNode(n)
			return "rename"
		}
	case 9:
		// Deleted and added again: another NodeInfo, with the very same node object.
		list[i] = framework.NewNodeInfo(old)
		return "a new NodeInfo"
	}
	return "nothing"
}

// positioned gives each NodeInfo its position, as the snapshot does, and returns a copy
// of the list so that the Nodes cannot rely on the caller keeping it.
func positioned(infos []*framework.NodeInfo) []*framework.NodeInfo {
	for i, ni := range infos {
		ni.Index = i
	}
	return slices.Clone(infos)
}

func (r *followRun) record(n *Nodes) *followed {
	f := &followed{n: n, infos: slices.Clone(n.Infos()), built: map[string]bool{}}
	for _, ni := range f.infos {
		f.nodes = append(f.nodes, ni.Node())
	}
	return f
}

// useKeys builds some keys, as cycles do when their pods use them.
func (r *followRun) useKeys(t *testing.T, f *followed) {
	for _, k := range randomKeys {
		if r.rng.IntN(3) == 0 {
			f.n.Key(k)
			f.built[k] = true
		}
	}
}

// expectedOutcome compares the lists: any NodeInfo or name changed is a fresh start; else
// a new node object in another domain (another value, or with or without the key) of a
// built key is too; else any new node object is a shared copy; else nothing changed.
func expectedOutcome(prev *followed, infos []*framework.NodeInfo) followOutcome {
	if len(infos) != len(prev.infos) {
		return followFresh
	}
	want := followSelf
	for i, ni := range infos {
		if ni != prev.infos[i] {
			return followFresh
		}
		old, now := prev.nodes[i], ni.Node()
		if now == old {
			continue
		}
		if now.Name != old.Name {
			return followFresh
		}
		for k := range prev.built {
			ov, oldHas := old.Labels[k]
			nv, nowHas := now.Labels[k]
			if oldHas != nowHas || ov != nv {
				return followFresh
			}
		}
		want = followShared
	}
	return want
}

func outcomeOf(prev *followed, next *Nodes) followOutcome {
	switch {
	case next == prev.n:
		return followSelf
	case next.SharesInfos(prev.n):
		return followShared
	default:
		return followFresh
	}
}

func checkLists(t *testing.T, step int, f *followed, infos []*framework.NodeInfo) {
	t.Helper()
	if !slices.Equal(f.n.Infos(), infos) || f.n.Len() != len(infos) {
		t.Fatalf("step %d: Infos differ from the list followed", step)
	}
	for i, ni := range infos {
		if f.n.Objects()[i] != ni.Node() {
			t.Fatalf("step %d: Objects()[%d] is not the node object of the NodeInfo", step, i)
		}
	}
}

// checkKey compares a key's domains in f with those numbered from scratch from f's node
// objects: values in the order nodes first carry them ("" last if no node does and the
// option asks for it), each node in the domain of its value, Missing without the key.
func checkKey(t *testing.T, step int, f *followed, key string) {
	t.Helper()
	k := f.n.Key(key)
	var values []string
	for _, n := range f.nodes {
		if v, ok := n.Labels[key]; ok && !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	if f.n.opts.EmptyDomain && !slices.Contains(values, "") {
		values = append(values, "")
	}
	if k.Key != key || !slices.Equal(k.Values, values) {
		t.Fatalf("step %d: key %s has values %q, want %q", step, key, k.Values, values)
	}
	if len(k.Of) != len(f.nodes) {
		t.Fatalf("step %d: key %s has %d nodes, want %d", step, key, len(k.Of), len(f.nodes))
	}
	for i, n := range f.nodes {
		want := Missing
		if v, ok := n.Labels[key]; ok {
			want = int32(slices.Index(values, v))
		}
		if k.Of[i] != want {
			t.Fatalf("step %d: key %s puts node %d (%s) in domain %d, want %d", step, key, i, n.Name, k.Of[i], want)
		}
	}
}

// checkDomainOf finds, for the keys in use, each listed node's domain by its position, and
// that of a node outside the list by its labels.
func checkDomainOf(t *testing.T, step int, f *followed, r *followRun) {
	t.Helper()
	outside := framework.NewNodeInfo(r.newNode())
	outside.Index = r.rng.IntN(len(f.infos) + 1)
	for _, key := range randomKeys {
		if !f.built[key] {
			continue
		}
		k := f.n.Key(key)
		for i, ni := range f.infos {
			if got := k.DomainOf(ni); got != k.Of[i] {
				t.Fatalf("step %d: key %s: DomainOf(node %d) = %d, want %d", step, key, i, got, k.Of[i])
			}
		}
		want := Missing
		if v, ok := outside.Node().Labels[key]; ok {
			want = Unknown
			if id := slices.Index(k.Values, v); id >= 0 {
				want = int32(id)
			}
		}
		if got := k.DomainOf(outside); got != want {
			t.Fatalf("step %d: key %s: DomainOf(a node outside) = %d, want %d", step, key, got, want)
		}
	}
}

// fakeSnapshot is a snapshot that only lists nodes, with a layout version the test moves.
type fakeSnapshot struct {
	framework.Snapshot
	infos  []*framework.NodeInfo
	layout uint64
}

func (s *fakeSnapshot) NodeInfos() []*framework.NodeInfo { return s.infos }
func (s *fakeSnapshot) LayoutVersion() uint64            { return s.layout }

// TestFollowerLooksOnlyWhenTheSnapshotSaysSo: the Follower hands out the same Nodes until
// the layout version or the newest static generation moves, and then follows the nodes.
func TestFollowerLooksOnlyWhenTheSnapshotSaysSo(t *testing.T) {
	a := framework.NewNodeInfo(node(map[string]string{"zone": "a"}))
	b := framework.NewNodeInfo(node(map[string]string{"zone": "b"}))
	snap := &fakeSnapshot{infos: []*framework.NodeInfo{a}}
	f := &Follower{Options: Options{EmptyDomain: true}}
	first := f.Follow(snap)
	if first.Len() != 1 || !slices.Equal(first.Key("zone").Values, []string{"a", ""}) {
		t.Fatalf("first Follow: %d nodes, zone values %q; want 1 node, [a \"\"] (the option numbers \"\")", first.Len(), first.Key("zone").Values)
	}

	// A list that changed without the snapshot saying so is not looked at.
	snap.infos = []*framework.NodeInfo{a, b}
	if f.Follow(snap) != first {
		t.Fatal("Follow looked at the nodes though neither the layout nor a static generation moved")
	}

	snap.layout++
	second := f.Follow(snap)
	if second == first || second.Len() != 2 || !slices.Equal(second.Key("zone").Values, []string{"a", "b", ""}) {
		t.Fatalf("after the layout moved: %d nodes, zone values %q; want a fresh Nodes of 2, [a b \"\"]", second.Len(), second.Key("zone").Values)
	}
	if f.Follow(snap) != second {
		t.Fatal("a second Follow with nothing moved gave another Nodes")
	}

	// A relabelled node moves the newest static generation (SetNode).
	b.SetNode(node(map[string]string{"zone": "c"}))
	third := f.Follow(snap)
	if third == second || !slices.Equal(third.Key("zone").Values, []string{"a", "c", ""}) {
		t.Fatalf("after b was relabelled: zone values %q, want [a c \"\"] in a new Nodes", third.Key("zone").Values)
	}
	if !slices.Equal(second.Key("zone").Values, []string{"a", "b", ""}) {
		t.Fatalf("the Nodes a cycle kept changed: zone values %q, want [a b \"\"]", second.Key("zone").Values)
	}
}
