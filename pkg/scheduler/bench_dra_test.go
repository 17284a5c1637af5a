package scheduler

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// claimStore is an in-memory API of ResourceClaims (framework.ResourceClient) for tests:
// writes are reported back to the scheduler as an informer would.
type claimStore struct {
	*fakeCluster
	mu     sync.Mutex
	claims map[string]*resourceapi.ResourceClaim
}

func newClaimStore(fc *fakeCluster) *claimStore {
	return &claimStore{fakeCluster: fc, claims: map[string]*resourceapi.ResourceClaim{}}
}

func (c *claimStore) put(cl *resourceapi.ResourceClaim) {
	c.mu.Lock()
	c.claims[cl.Namespace+"/"+cl.Name] = cl
	c.mu.Unlock()
}

func (c *claimStore) GetResourceClaim(_ context.Context, ns, name string) (*resourceapi.ResourceClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.claims[ns+"/"+name]; cl != nil {
		return cl, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("resourceclaims"), name)
}
func (c *claimStore) CreateResourceClaim(_ context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	c.put(cl)
	return cl, nil
}
func (c *claimStore) UpdateResourceClaim(_ context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	c.put(cl)
	return cl, nil
}
func (c *claimStore) UpdateResourceClaimStatus(_ context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	c.put(cl)
	c.s.Post(func() { c.s.Resources().UpdateResourceClaim(nil, cl) })
	return cl, nil
}
func (c *claimStore) DeleteClaim(_ context.Context, ns, name string) error {
	c.mu.Lock()
	delete(c.claims, ns+"/"+name)
	c.mu.Unlock()
	return nil
}
func (c *claimStore) GetResourceClaimTemplate(_ context.Context, _, name string) (*resourceapi.ResourceClaimTemplate, error) {
	return nil, apierrors.NewNotFound(resourceapi.Resource("resourceclaimtemplates"), name)
}
func (c *claimStore) PatchPodExtendedResourceClaimStatus(context.Context, *v1.Pod, *v1.PodExtendedResourceClaimStatus) error {
	return nil
}
func (c *claimStore) GetPersistentVolume(_ context.Context, name string) (*v1.PersistentVolume, error) {
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumes"), name)
}
func (c *claimStore) UpdatePersistentVolume(_ context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	return pv, nil
}
func (c *claimStore) GetPersistentVolumeClaim(_ context.Context, _, name string) (*v1.PersistentVolumeClaim, error) {
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), name)
}
func (c *claimStore) UpdatePersistentVolumeClaim(_ context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	return pvc, nil
}

// deferred holds the actuator's work until the test runs it, so that a benchmark times
// the scheduling decision and not the binding cycle.
type deferred struct{ tasks []func() }

func (d *deferred) Go(task func())               { d.tasks = append(d.tasks, task) }
func (d *deferred) Parallel(n int, fn func(int)) { inline{}.Parallel(n, fn) }
func (d *deferred) run() {
	for len(d.tasks) > 0 {
		t := d.tasks[0]
		d.tasks = d.tasks[1:]
		t()
	}
}

const (
	benchDriver = "gpu.example.com"
	cliqueAttr  = "gpu.example.com/clique"
)

// BenchmarkDRAGang: a 64-pod gang with one device claim per pod on 1,000 nodes of 8 GPUs
// each, in 125 NVLink cliques of 8 nodes (64 GPUs), the gang required to run in one clique
// (spec.schedulingConstraints.deviceTopology). "free": every clique is free. "fragmented":
// every other clique has one GPU taken, so it cannot hold the gang and the search must
// get past it. It reports the decision time: one group cycle, from the queue to the 64
// members assumed with their claims allocated in the snapshot; the binding cycles (claims
// written, pods bound) run afterwards and are checked: 64 distinct GPUs of one clique.
func BenchmarkDRAGang(b *testing.B) {
	for _, tc := range []struct {
		name          string
		fragmentEvery int // clique c has a GPU taken when c%fragmentEvery == 0 (0: none)
	}{
		{"free", 0},
		{"fragmented", 2},
	} {
		b.Run(tc.name, func(b *testing.B) { benchDRAGang(b, tc.fragmentEvery) })
	}
}

func benchDRAGang(b *testing.B, fragmentEvery int) {
	const nodes, perNode, perClique, gang = 1000, 8, 8, 64
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		s, store, exec := newDRAScheduler(b)
		s.Resources().UpdateDeviceClass(nil, testutil.DeviceClass("gpu", benchDriver))
		for i := range nodes {
			node := fmt.Sprintf("node-%04d", i)
			clique := fmt.Sprintf("c%03d", i/perClique)
			s.AddNode(testutil.Node(node).Capacity("cpu", "64", "memory", "512Gi").Obj())
			s.Resources().UpdateResourceSlice(nil, testutil.Slice(node, benchDriver, "gpu", perNode, "clique", clique))
			if c := i / perClique; fragmentEvery > 0 && c%fragmentEvery == 0 && i%perClique == 0 {
				// A running pod holds one GPU of the clique.
				busy := testutil.Claim(node+"-busy", "gpu", 1)
				busy.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
					Results: []resourceapi.DeviceRequestAllocationResult{{Request: "devices", Driver: benchDriver, Pool: node, Device: "gpu-0"}},
				}}
				s.Resources().UpdateResourceClaim(nil, busy)
				s.AddPod(testutil.Pod(node+"-busy").Req("cpu", "1").Claims(busy.Name).Node(node).Obj())
			}
		}
		pg := podGroup("trainer", gang, false, 1000)
		pg.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{
			DeviceTopology: &v1alpha1.DeviceTopologyConstraint{MatchAttribute: cliqueAttr},
		}
		s.AddPodGroup(pg)
		for m := range gang {
			name := fmt.Sprintf("trainer-%02d", m)
			cl := testutil.Claim(name+"-gpu", "gpu", 1)
			store.put(cl)
			s.Resources().UpdateResourceClaim(nil, cl)
			s.AddPod(testutil.Pod(name).Labels(v1alpha1.LabelPodGroup, "trainer").Priority(1000).
				Req("cpu", "4", "memory", "16Gi").Claims(cl.Name).Obj())
		}
		total += timedCycle(b, s)
		exec.run()
		s.DrainInbox()
		checkCliqueAllocations(b, store, gang, perClique)
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/decision")
}

func newDRAScheduler(t testing.TB) (*Scheduler, *claimStore, *deferred) {
	t.Helper()
	s, fc, clock := newTestScheduler(t, nil)
	store := newClaimStore(fc)
	exec := &deferred{}
	s2, err := New(Options{Config: s.cfg, Registry: plugins.NewRegistry(), Clock: clock, Client: store, Exec: exec, Logger: s.logger, AnySchedulerName: true})
	if err != nil {
		t.Fatal(err)
	}
	fc.s = s2
	return s2, store, exec
}

// checkCliqueAllocations checks that the gang's claims were written with distinct GPUs
// of one clique.
func checkCliqueAllocations(t testing.TB, store *claimStore, gang, perClique int) {
	t.Helper()
	devices := sets.New[string]()
	cliques := sets.New[int]()
	for k, cl := range store.claims {
		if !strings.HasSuffix(k, "-gpu") {
			continue
		}
		if cl.Status.Allocation == nil || len(cl.Status.Allocation.Devices.Results) != 1 || len(cl.Status.ReservedFor) != 1 {
			t.Fatalf("claim %s not allocated and reserved: %+v", k, cl.Status)
		}
		r := cl.Status.Allocation.Devices.Results[0]
		devices.Insert(r.Pool + "/" + r.Device)
		var n int
		fmt.Sscanf(r.Pool, "node-%d", &n)
		cliques.Insert(n / perClique)
	}
	if devices.Len() != gang || cliques.Len() != 1 {
		t.Fatalf("%d distinct GPUs in cliques %v, want %d GPUs in one clique", devices.Len(), sets.List(cliques), gang)
	}
}
