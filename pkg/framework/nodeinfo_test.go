package framework

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/resource"
)

var nodeInfoPods = []podSpec{
	{name: "p0", cpu: 100, mem: 1 << 30},
	{name: "p1", cpu: 250, affinity: true, ports: []v1.ContainerPort{tcp(80)}},
	{name: "p2", mem: 1 << 20, gpu: 1, anti: true},
	{name: "p3", ports: []v1.ContainerPort{{HostPort: 80, HostIP: "10.0.0.1", Protocol: v1.ProtocolUDP}, tcp(8080)}},
	{name: "p4", cpu: 500, mem: 2 << 30, gpu: 2, affinity: true, anti: true, ports: []v1.ContainerPort{tcp(80)}},
}

// sumOf computes what a node holding the pods must account, independently of NodeInfo.
func sumOf(pods []*PodInfo) (resource.Vector, int64, int64, map[HostPort]int32) {
	var req resource.Vector
	var nzCPU, nzMem int64
	ports := map[HostPort]int32{}
	for _, p := range pods {
		for i := range req {
			req[i] += p.Requests.Vector[i]
		}
		nzCPU += p.Requests.NonZeroCPU
		nzMem += p.Requests.NonZeroMemory
		for _, hp := range p.HostPorts {
			ports[hp]++
		}
	}
	return req, nzCPU, nzMem, ports
}

func TestNodeInfoAddRemoveRestoreUndo(t *testing.T) {
	type op struct {
		kind string // add, remove, restore, undo
		pod  int
	}
	add := func(i int) op { return op{"add", i} }
	remove := func(i int) op { return op{"remove", i} }
	restore := func(i int) op { return op{"restore", i} }
	undo := func(i int) op { return op{"undo", i} }
	addAll := []op{add(0), add(1), add(2), add(3), add(4)}

	tests := []struct {
		name                 string
		ops                  []op
		pods, affinity, anti []string
	}{
		{"empty", nil, nil, nil, nil},
		{"add all", addAll,
			[]string{"p0", "p1", "p2", "p3", "p4"}, []string{"p1", "p2", "p4"}, []string{"p2", "p4"}},
		{"remove moves the last pod into the hole", append(slices.Clone(addAll), remove(1)),
			[]string{"p0", "p4", "p2", "p3"}, []string{"p4", "p2"}, []string{"p2", "p4"}},
		{"restore undoes remove exactly", append(slices.Clone(addAll), remove(1), restore(1)),
			[]string{"p0", "p1", "p2", "p3", "p4"}, []string{"p1", "p2", "p4"}, []string{"p2", "p4"}},
		{"two removes", append(slices.Clone(addAll), remove(1), remove(2)),
			[]string{"p0", "p4", "p3"}, []string{"p4"}, []string{"p4"}},
		{"two removes restored in reverse", append(slices.Clone(addAll), remove(1), remove(2), restore(2), restore(1)),
			[]string{"p0", "p1", "p2", "p3", "p4"}, []string{"p1", "p2", "p4"}, []string{"p2", "p4"}},
		{"remove the last pod", append(slices.Clone(addAll), remove(4)),
			[]string{"p0", "p1", "p2", "p3"}, []string{"p1", "p2"}, []string{"p2"}},
		{"remove the first pod and restore it", append(slices.Clone(addAll), remove(0), restore(0)),
			[]string{"p0", "p1", "p2", "p3", "p4"}, []string{"p1", "p2", "p4"}, []string{"p2", "p4"}},
		{"remove all, restore all", append(slices.Clone(addAll),
			remove(2), remove(0), remove(4), remove(1), remove(3),
			restore(3), restore(1), restore(4), restore(0), restore(2)),
			[]string{"p0", "p1", "p2", "p3", "p4"}, []string{"p1", "p2", "p4"}, []string{"p2", "p4"}},
		{"remove all", append(slices.Clone(addAll), remove(0), remove(1), remove(2), remove(3), remove(4)),
			[]string{}, []string{}, []string{}},
		{"undo add", []op{add(0), add(4), undo(4)}, []string{"p0"}, []string{}, []string{}},
		{"undo adds in reverse", append(slices.Clone(addAll), undo(4), undo(3), undo(2)),
			[]string{"p0", "p1"}, []string{"p1"}, []string{}},
		{"add after remove appends", append(slices.Clone(addAll), remove(0), add(0)),
			[]string{"p4", "p1", "p2", "p3", "p0"}, []string{"p1", "p2", "p4"}, []string{"p2", "p4"}},
		{"undo an add that follows a remove", append(slices.Clone(addAll), remove(2), add(2), undo(2), restore(2)),
			[]string{"p0", "p1", "p2", "p3", "p4"}, []string{"p1", "p2", "p4"}, []string{"p2", "p4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNodeInfo(testNode("n"))
			pods := make([]*PodInfo, len(nodeInfoPods))
			for i, s := range nodeInfoPods {
				pods[i] = s.info()
			}
			slots := map[int]PodSlot{}
			for _, o := range tt.ops {
				gen := n.Generation
				p := pods[o.pod]
				switch o.kind {
				case "add":
					n.AddPod(p)
				case "remove":
					slots[o.pod] = n.RemovePod(p)
				case "restore":
					n.RestorePod(p, slots[o.pod])
				case "undo":
					n.UndoAdd(p)
				}
				if n.Generation == gen {
					t.Errorf("%s %s did not change the generation", o.kind, p.Key)
				}
				if err := n.Verify(); err != nil {
					t.Fatalf("after %s %s: %v", o.kind, p.Key, err)
				}
				wantNode := ""
				if o.kind == "add" || o.kind == "restore" {
					wantNode = "n"
				}
				if p.NodeName != wantNode {
					t.Errorf("after %s %s: pod's NodeName %q, want %q", o.kind, p.Key, p.NodeName, wantNode)
				}
			}
			var on []*PodInfo
			for _, key := range tt.pods {
				on = append(on, pods[key[1]-'0'])
			}
			req, nzCPU, nzMem, ports := sumOf(on)
			want := nodeState{tt.pods, tt.affinity, tt.anti, req, nzCPU, nzMem, ports}
			if got := stateOf(n); !got.equal(want) {
				t.Errorf("state\n got %v\nwant %v", got, want)
			}
			for _, p := range pods {
				if slices.Contains(n.Pods, p) {
					continue
				}
				if p.nodePos != -1 || p.affinityPos != -1 || p.antiAffinityPos != -1 {
					t.Errorf("pod %s off the node still has positions %d/%d/%d", p.Key, p.nodePos, p.affinityPos, p.antiAffinityPos)
				}
			}
		})
	}
}

// TestNodeInfoRandomUndoLog drives a node through random adds and removes recorded in a
// LIFO undo log, as the cache's checkpoints do, and rolls back to random checkpoints: every
// rollback must give back exactly the state at the checkpoint, slice order included.
func TestNodeInfoRandomUndoLog(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 42))
		pods := make([]*PodInfo, 16)
		for i := range pods {
			s := podSpec{
				name:     "p" + string(rune('a'+i)),
				cpu:      rng.Int64N(4) * 100,
				mem:      rng.Int64N(3) << 20,
				gpu:      rng.Int64N(2),
				affinity: rng.IntN(3) == 0,
				anti:     rng.IntN(3) == 0,
			}
			if rng.IntN(3) == 0 {
				s.ports = []v1.ContainerPort{tcp(int32(80 + rng.IntN(3)))}
			}
			pods[i] = s.info()
		}
		type undo struct {
			pod    *PodInfo
			remove bool
			slot   PodSlot
		}
		type checkpoint struct {
			logLen int
			state  nodeState
		}
		n := NewNodeInfo(testNode("n"))
		var log []undo
		var checkpoints []checkpoint
		on := map[*PodInfo]bool{}
		rollback := func() {
			cp := checkpoints[len(checkpoints)-1]
			checkpoints = checkpoints[:len(checkpoints)-1]
			for len(log) > cp.logLen {
				u := log[len(log)-1]
				log = log[:len(log)-1]
				if u.remove {
					n.RestorePod(u.pod, u.slot)
					on[u.pod] = true
				} else {
					n.UndoAdd(u.pod)
					delete(on, u.pod)
				}
			}
			if got := stateOf(n); !got.equal(cp.state) {
				t.Fatalf("seed %d: rollback\n got %v\nwant %v", seed, got, cp.state)
			}
		}
		for step := range 400 {
			switch r := rng.IntN(10); {
			case r < 4:
				p := pods[rng.IntN(len(pods))]
				if !on[p] {
					n.AddPod(p)
					on[p] = true
					log = append(log, undo{pod: p})
				}
			case r < 7:
				if len(n.Pods) > 0 {
					p := n.Pods[rng.IntN(len(n.Pods))]
					log = append(log, undo{pod: p, remove: true, slot: n.RemovePod(p)})
					delete(on, p)
				}
			case r < 9:
				checkpoints = append(checkpoints, checkpoint{len(log), stateOf(n)})
			default:
				if len(checkpoints) > 0 {
					rollback()
				}
			}
			if err := n.Verify(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			// Membership against the model: Verify trusts the slices, so check them too.
			var model []*PodInfo
			for _, p := range pods {
				if on[p] {
					model = append(model, p)
				}
			}
			got := slices.Clone(n.Pods)
			slices.SortFunc(got, func(a, b *PodInfo) int { return cmpString(a.Key, b.Key) })
			if !slices.Equal(got, model) {
				t.Fatalf("seed %d step %d: pods %v, model %v", seed, step, stateOf(n).pods, len(model))
			}
		}
		checkpoints = append([]checkpoint{{0, nodeState{pods: []string{}, affinity: []string{}, anti: []string{}, ports: map[HostPort]int32{}}}}, checkpoints...)
		for len(checkpoints) > 0 {
			rollback()
		}
		if n.UsedPorts.Len() != 0 || !n.Requested.IsZero() || n.NonZeroCPU != 0 || n.NonZeroMemory != 0 {
			t.Errorf("seed %d: after rolling everything back: %v", seed, stateOf(n))
		}
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestNodeInfoSetNodeAllocatable(t *testing.T) {
	gpu, err := resource.Index(testGPU)
	if err != nil {
		t.Fatal(err)
	}
	list := func(kv ...string) v1.ResourceList {
		l := v1.ResourceList{}
		for i := 0; i+1 < len(kv); i += 2 {
			l[v1.ResourceName(kv[i])] = apiresource.MustParse(kv[i+1])
		}
		return l
	}
	tests := []struct {
		name                 string
		allocatable, capcity v1.ResourceList
		want                 map[int]int64
	}{
		{"allocatable", list("cpu", "3500m", "memory", "1Gi", "pods", "110", string(testGPU), "2"), list("cpu", "4"),
			map[int]int64{resource.CPU: 3500, resource.Memory: 1 << 30, resource.Pods: 110, gpu: 2}},
		{"capacity when allocatable is empty", nil, list("cpu", "4", "memory", "2Gi", "ephemeral-storage", "10G"),
			map[int]int64{resource.CPU: 4000, resource.Memory: 2 << 30, resource.EphemeralStorage: 10e9}},
		{"empty allocatable list counts as unset", v1.ResourceList{}, list("pods", "10"),
			map[int]int64{resource.Pods: 10}},
		{"neither", nil, nil, map[int]int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"},
				Status: v1.NodeStatus{Allocatable: tt.allocatable, Capacity: tt.capcity}}
			n := NewNodeInfo(node)
			var want resource.Vector
			for i, v := range tt.want {
				want[i] = v
			}
			if n.Allocatable != want {
				t.Errorf("allocatable %s, want %s", n.Allocatable.String(), want.String())
			}
			if n.Name != "n" || n.Node() != node {
				t.Errorf("name %q node %p, want n and %p", n.Name, n.Node(), node)
			}
			if n.Free(resource.CPU) != want[resource.CPU] {
				t.Errorf("free cpu %d, want %d", n.Free(resource.CPU), want[resource.CPU])
			}
		})
	}
}

func TestNodeInfoStaticGeneration(t *testing.T) {
	tests := []struct {
		name    string
		change  func(n *v1.Node)
		changes bool
	}{
		{"same object again", func(*v1.Node) {}, false},
		{"condition (status only)", func(n *v1.Node) {
			n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
		}, false},
		{"annotation", func(n *v1.Node) { n.Annotations = map[string]string{"a": "b"} }, false},
		{"capacity while allocatable is set", func(n *v1.Node) { n.Status.Capacity = v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("64")} }, false},
		{"allocatable quantity rewritten equal", func(n *v1.Node) { n.Status.Allocatable[v1.ResourceCPU] = apiresource.MustParse("8000m") }, false},
		{"taint time added", func(n *v1.Node) { n.Spec.Taints[0].TimeAdded = &metav1.Time{} }, false},
		{"label value", func(n *v1.Node) { n.Labels["zone"] = "b" }, true},
		{"label added", func(n *v1.Node) { n.Labels["new"] = "x" }, true},
		{"label removed", func(n *v1.Node) { delete(n.Labels, "zone") }, true},
		{"taint added", func(n *v1.Node) {
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "k2", Effect: v1.TaintEffectNoExecute})
		}, true},
		{"taint removed", func(n *v1.Node) { n.Spec.Taints = nil }, true},
		{"taint value", func(n *v1.Node) { n.Spec.Taints[0].Value = "other" }, true},
		{"taint effect", func(n *v1.Node) { n.Spec.Taints[0].Effect = v1.TaintEffectPreferNoSchedule }, true},
		{"cordoned", func(n *v1.Node) { n.Spec.Unschedulable = true }, true},
		{"allocatable cpu", func(n *v1.Node) { n.Status.Allocatable[v1.ResourceCPU] = apiresource.MustParse("7") }, true},
		{"allocatable extended resource added", func(n *v1.Node) {
			n.Status.Allocatable[testGPU] = apiresource.MustParse("1")
		}, true},
	}
	base := func() *v1.Node {
		n := testNode("n")
		delete(n.Status.Allocatable, testGPU)
		n.Labels["zone"] = "a"
		n.Spec.Taints = []v1.Taint{{Key: "k", Value: "v", Effect: v1.TaintEffectNoSchedule}}
		return n
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNodeInfo(base())
			if n.StaticGeneration != LastStaticGeneration() {
				t.Errorf("new node's static generation %d, last handed out %d", n.StaticGeneration, LastStaticGeneration())
			}
			static, gen := n.StaticGeneration, n.Generation
			next := base()
			tt.change(next)
			n.SetNode(next)
			if changed := n.StaticGeneration != static; changed != tt.changes {
				t.Errorf("static generation changed: %v, want %v", changed, tt.changes)
			}
			if n.Generation == gen {
				t.Error("SetNode did not change the generation")
			}
			if n.Node() != next || n.Unschedulable != next.Spec.Unschedulable || !slices.Equal(n.Taints, next.Spec.Taints) {
				t.Errorf("node fields not copied: unschedulable %v taints %v", n.Unschedulable, n.Taints)
			}
		})
	}
}

func TestNodeInfoStaticGenerationNilVsEmptyLabels(t *testing.T) {
	n := NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{}}})
	static := n.StaticGeneration
	n.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}})
	if n.StaticGeneration != static {
		t.Error("empty labels replaced by nil labels changed the static generation")
	}
}

func TestNodeInfoStaticGenerationUnique(t *testing.T) {
	node := testNode("n")
	a, b := NewNodeInfo(node), NewNodeInfo(node)
	if a.StaticGeneration == b.StaticGeneration {
		t.Errorf("two nodes share static generation %d", a.StaticGeneration)
	}
	// A node removed (pods still running) and added back never matches its old verdicts.
	old := a.StaticGeneration
	a.SetNode(nil)
	if a.Node() != nil || a.Name != "n" {
		t.Errorf("after SetNode(nil): node %v name %q", a.Node(), a.Name)
	}
	a.SetNode(node)
	if a.StaticGeneration == old {
		t.Error("re-adding a removed node kept its static generation")
	}
}

func TestHostPortSetConflicts(t *testing.T) {
	hp := func(ip string, proto v1.Protocol, port int32) HostPort {
		return HostPort{IP: ip, Protocol: proto, Port: port}
	}
	const wildcard = "0.0.0.0"
	tests := []struct {
		name  string
		used  []HostPort
		query HostPort
		want  bool
	}{
		{"empty", nil, hp(wildcard, v1.ProtocolTCP, 80), false},
		{"same wildcard", []HostPort{hp(wildcard, v1.ProtocolTCP, 80)}, hp(wildcard, v1.ProtocolTCP, 80), true},
		{"used wildcard vs specific IP", []HostPort{hp(wildcard, v1.ProtocolTCP, 80)}, hp("10.0.0.1", v1.ProtocolTCP, 80), true},
		{"used specific IP vs wildcard", []HostPort{hp("10.0.0.1", v1.ProtocolTCP, 80)}, hp(wildcard, v1.ProtocolTCP, 80), true},
		{"same specific IP", []HostPort{hp("10.0.0.1", v1.ProtocolTCP, 80)}, hp("10.0.0.1", v1.ProtocolTCP, 80), true},
		{"different specific IPs", []HostPort{hp("10.0.0.1", v1.ProtocolTCP, 80)}, hp("10.0.0.2", v1.ProtocolTCP, 80), false},
		{"different protocol", []HostPort{hp(wildcard, v1.ProtocolTCP, 80)}, hp(wildcard, v1.ProtocolUDP, 80), false},
		{"SCTP vs TCP on a specific IP", []HostPort{hp("10.0.0.1", v1.ProtocolSCTP, 80)}, hp("10.0.0.1", v1.ProtocolTCP, 80), false},
		{"different port", []HostPort{hp(wildcard, v1.ProtocolTCP, 80)}, hp(wildcard, v1.ProtocolTCP, 81), false},
		{"one of several", []HostPort{hp("10.0.0.1", v1.ProtocolUDP, 53), hp("10.0.0.2", v1.ProtocolTCP, 443)},
			hp(wildcard, v1.ProtocolTCP, 443), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s HostPortSet
			for _, u := range tt.used {
				s.add(u, 1)
			}
			if got := s.Conflicts(tt.query); got != tt.want {
				t.Errorf("Conflicts(%v) with %v = %v, want %v", tt.query, tt.used, got, tt.want)
			}
		})
	}
}

func TestHostPortSetCounts(t *testing.T) {
	port := HostPort{IP: "0.0.0.0", Protocol: v1.ProtocolTCP, Port: 80}
	var s HostPortSet
	s.add(port, 1)
	s.add(port, 1)
	if s.Len() != 1 {
		t.Errorf("Len() = %d after the same port twice, want 1", s.Len())
	}
	s.add(port, -1)
	if !s.Conflicts(port) {
		t.Error("port released by one of two pods no longer conflicts")
	}
	s.add(port, -1)
	if s.Conflicts(port) || s.Len() != 0 {
		t.Errorf("port released by both pods: conflicts %v, Len %d", s.Conflicts(port), s.Len())
	}
	var a, b HostPortSet
	a.add(port, 2)
	b.add(port, 1)
	if a.Equal(&b) {
		t.Error("port sets with different counts are equal")
	}
	b.add(port, 1)
	if !a.Equal(&b) {
		t.Error("port sets with the same counts differ")
	}
}

// Verify must catch a NodeInfo whose sums or positions drift from its pods.
func TestNodeInfoVerifyDetectsCorruption(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(n *NodeInfo)
	}{
		{"requested", func(n *NodeInfo) { n.Requested[resource.CPU]++ }},
		{"non-zero cpu", func(n *NodeInfo) { n.NonZeroCPU++ }},
		{"non-zero memory", func(n *NodeInfo) { n.NonZeroMemory-- }},
		{"ports", func(n *NodeInfo) { n.UsedPorts.add(HostPort{IP: "0.0.0.0", Protocol: v1.ProtocolTCP, Port: 9}, 1) }},
		{"pod position", func(n *NodeInfo) { n.Pods[0], n.Pods[1] = n.Pods[1], n.Pods[0] }},
		{"affinity position", func(n *NodeInfo) { n.PodsWithAffinity[0].affinityPos = 5 }},
		{"anti-affinity position", func(n *NodeInfo) { n.PodsWithRequiredAntiAffinity[0].antiAffinityPos = 5 }},
		{"pod's node name", func(n *NodeInfo) { n.Pods[2].NodeName = "elsewhere" }},
		{"free", func(n *NodeInfo) { n.free[resource.Pods]-- }},
		{"allocatable copy", func(n *NodeInfo) { n.alloc[resource.Memory]++ }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNodeInfo(testNode("n"))
			for _, s := range nodeInfoPods {
				n.AddPod(s.info())
			}
			if err := n.Verify(); err != nil {
				t.Fatalf("before corruption: %v", err)
			}
			tt.corrupt(n)
			if n.Verify() == nil {
				t.Error("Verify() = nil after corruption")
			}
		})
	}
}

// TestNodeInfoHotAccessors holds Free, AllocatableAt and RequestedAt (read from the copies
// in the node's first cache lines for the first resources) to the vectors, for every
// resource, as pods come and go and the node's allocatable changes.
func TestNodeInfoHotAccessors(t *testing.T) {
	check := func(t *testing.T, step string, n *NodeInfo) {
		t.Helper()
		for i := range resource.Max {
			if got, want := n.Free(i), n.Allocatable[i]-n.Requested[i]; got != want {
				t.Errorf("%s: Free(%d) = %d, want %d", step, i, got, want)
			}
			if got := n.AllocatableAt(i); got != n.Allocatable[i] {
				t.Errorf("%s: AllocatableAt(%d) = %d, want %d", step, i, got, n.Allocatable[i])
			}
			if got := n.RequestedAt(i); got != n.Requested[i] {
				t.Errorf("%s: RequestedAt(%d) = %d, want %d", step, i, got, n.Requested[i])
			}
		}
		if err := n.Verify(); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
	node := testNode("n")
	n := NewNodeInfo(node)
	check(t, "new", n)
	var pods []*PodInfo
	for _, s := range nodeInfoPods {
		p := s.info()
		pods = append(pods, p)
		n.AddPod(p)
		check(t, "add "+s.name, n)
	}
	slot := n.RemovePod(pods[2])
	check(t, "remove p2", n)
	grown := node.DeepCopy()
	grown.Status.Allocatable[v1.ResourceCPU] = apiresource.MustParse("64")
	grown.Status.Allocatable[v1.ResourceMemory] = apiresource.MustParse("1Ti")
	n.SetNode(grown)
	check(t, "allocatable grown", n)
	n.RestorePod(pods[2], slot)
	check(t, "restore p2", n)
	n.UndoAdd(pods[4])
	check(t, "undo p4", n)
}

// TestNodeInfoLayout keeps what filtering and scoring read of every node in the struct's
// first two cache lines (the resource scores' inputs beyond Generation are read only when
// their score is not remembered) (objects of its size are allocated 64-byte aligned).
func TestNodeInfoLayout(t *testing.T) {
	var n NodeInfo
	if off := unsafe.Offsetof(n.free); off != 0 {
		t.Errorf("free at offset %d, want 0", off)
	}
	for name, off := range map[string]uintptr{
		"Name": unsafe.Offsetof(n.Name), "Index": unsafe.Offsetof(n.Index), "Generation": unsafe.Offsetof(n.Generation),
		"NonZeroCPU": unsafe.Offsetof(n.NonZeroCPU), "NonZeroMemory": unsafe.Offsetof(n.NonZeroMemory),
		"PreferNoSchedule": unsafe.Offsetof(n.PreferNoSchedule), "hasImages": unsafe.Offsetof(n.hasImages),
	} {
		if off < 64 || off >= 128 {
			t.Errorf("%s at offset %d, want in the second cache line [64, 128)", name, off)
		}
	}
	// What a remembered score spares reading: one line, not split over two.
	if start, end := unsafe.Offsetof(n.alloc), unsafe.Offsetof(n.alloc)+unsafe.Sizeof(n.alloc)-1; start/64 != end/64 {
		t.Errorf("alloc spans offsets [%d, %d], over two cache lines", start, end)
	}
	if size := unsafe.Sizeof(n); size <= 512 {
		t.Errorf("NodeInfo is %d bytes: at 512 or less the allocator no longer aligns it to 64", size)
	}
}

func TestNodeInfoPreferNoSchedule(t *testing.T) {
	for _, tt := range []struct {
		name   string
		taints []v1.Taint
		want   bool
	}{
		{"none", nil, false},
		{"NoSchedule only", []v1.Taint{{Key: "a", Effect: v1.TaintEffectNoSchedule}}, false},
		{"PreferNoSchedule among others", []v1.Taint{{Key: "a", Effect: v1.TaintEffectNoExecute}, {Key: "b", Effect: v1.TaintEffectPreferNoSchedule}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			node := testNode("n")
			n := NewNodeInfo(node)
			tainted := node.DeepCopy()
			tainted.Spec.Taints = tt.taints
			n.SetNode(tainted)
			if n.PreferNoSchedule != tt.want {
				t.Errorf("PreferNoSchedule = %v, want %v", n.PreferNoSchedule, tt.want)
			}
			n.SetNode(node)
			if n.PreferNoSchedule {
				t.Error("PreferNoSchedule still set once the taints are gone")
			}
		})
	}
}
