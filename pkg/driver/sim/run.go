package sim

import (
	"container/heap"
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/controllers"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

// Options configure a simulation.
type Options struct {
	// Config is the scheduler configuration (defaults when nil). Its seed is overridden by
	// Seed when Seed is not zero.
	Config *config.Configuration
	Seed   int64
	// Until bounds virtual time (default 24h).
	Until time.Duration
	// SchedulerName, when set, schedules only pods with that spec.schedulerName; by
	// default every pending pod is scheduled.
	SchedulerName string
	// CheckInvariants checks the scheduler's invariants after every step and records
	// violations in the report.
	CheckInvariants bool
	// ReportWallTime fills summary.wallSeconds. It is off by default so that the same input
	// and seed give the same output byte for byte.
	ReportWallTime bool
	Logger         klog.Logger
}

// Epoch is virtual time 0.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Simulator runs one scenario.
type Simulator struct {
	sc    *Scenario
	opts  Options
	sched *scheduler.Scheduler

	now    time.Time
	queue  timedQueue
	tasks  []func()
	events []Event

	pods     map[string]*podRecord
	podOrder []*podRecord
	nodes    map[string]*v1.Node
	groups   map[string]*v1alpha1.PodGroup
	// groupGone marks groups deleted on the timeline (their last status is still reported).
	groupGone map[string]bool
	// native holds the native PodGroups by namespace/name; sources merges them with the
	// CRD's groups into what the scheduler sees.
	native map[string]*nativeRecord[*nativegroup.PodGroup]
	// composites are the CRD's CompositePodGroups (compositeGone: deleted on the timeline),
	// nativeComposites the native ones, merged by sources alike.
	composites       map[string]*v1alpha1.CompositePodGroup
	compositeGone    map[string]bool
	nativeComposites map[string]*nativeRecord[*nativegroup.CompositePodGroup]
	sources          *nativegroup.Sources
	pdbs             []*policyv1.PodDisruptionBudget
	pdbsDirty        bool
	nodeUsage        nodeUsage
	// waitingForNode are the pods created bound to a node that does not exist (yet), by
	// node name: no kubelet runs them.
	waitingForNode map[string][]*podRecord
	// nodeAdded and nodeDeleted are when each node came and went (names are unique).
	nodeAdded, nodeDeleted map[string]float64
	// objs are the storage and DRA objects (objects.go); slices the ResourceSlices.
	objs   objects
	slices map[string]*resourceapi.ResourceSlice

	violations []string
}

// New prepares a simulation of a scenario.
func New(sc *Scenario, opts Options) (*Simulator, error) {
	if opts.Until == 0 {
		opts.Until = 24 * time.Hour
	}
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if opts.Seed != 0 {
		c := *cfg
		c.Seed = opts.Seed
		cfg = &c
	}
	if opts.SchedulerName != "" {
		c := *cfg
		c.Profiles = append([]config.Profile(nil), cfg.Profiles...)
		c.Profiles[0].SchedulerName = opts.SchedulerName
		cfg = &c
	}
	s := &Simulator{
		sc:        sc,
		opts:      opts,
		now:       Epoch,
		pods:      map[string]*podRecord{},
		nodes:     map[string]*v1.Node{},
		groups:    map[string]*v1alpha1.PodGroup{},
		groupGone: map[string]bool{},
		native:    map[string]*nativeRecord[*nativegroup.PodGroup]{},

		composites:       map[string]*v1alpha1.CompositePodGroup{},
		compositeGone:    map[string]bool{},
		nativeComposites: map[string]*nativeRecord[*nativegroup.CompositePodGroup]{},
		nodeUsage:        nodeUsage{},

		waitingForNode: map[string][]*podRecord{},

		nodeAdded:   map[string]float64{},
		nodeDeleted: map[string]float64{},
		objs:        newObjects(),
		slices:      map[string]*resourceapi.ResourceSlice{},
	}
	var observer scheduler.Observer
	if opts.CheckInvariants {
		observer = &invariantObserver{s: s}
	}
	sched, err := scheduler.New(scheduler.Options{
		Observer:         observer,
		Config:           cfg,
		Registry:         plugins.NewRegistry(),
		Clock:            s,
		Client:           s,
		Exec:             s,
		Logger:           opts.Logger,
		AnySchedulerName: opts.SchedulerName == "",
	})
	if err != nil {
		return nil, err
	}
	s.sched = sched
	s.sources = nativegroup.NewSources(sched, s.nativeClash)
	s.sources.OnCompositeClash(s.nativeCompositeClash)
	s.plan()
	return s, nil
}

// Now is the virtual clock.
func (s *Simulator) Now() time.Time { return s.now }

// Go queues work of the actuator to run at the current virtual time, after the cycle that
// asked for it, in order.
func (s *Simulator) Go(task func()) { s.tasks = append(s.tasks, task) }

func (s *Simulator) seconds(t time.Time) float64 { return t.Sub(Epoch).Seconds() }

// at schedules work at a virtual time.
func (s *Simulator) at(t time.Time, fn func()) { s.queue.push(t, fn) }

// plan puts every object's creation and deletion on the timeline. At the same time,
// cluster-scoped objects come first, then pods in input order.
func (s *Simulator) plan() {
	for _, ns := range s.sc.Namespaces {
		t, _ := parseTiming(&ns.ObjectMeta)
		s.at(Epoch.Add(t.createAt), func() { s.sched.SetNamespace(ns) })
		if t.hasDelete {
			s.at(Epoch.Add(t.deleteAt), func() { s.sched.DeleteNamespace(ns) })
		}
	}
	for _, n := range s.sc.Nodes {
		t, _ := parseTiming(&n.ObjectMeta)
		s.at(Epoch.Add(t.createAt), func() { s.addNode(n) })
		if t.hasDelete {
			s.at(Epoch.Add(t.deleteAt), func() { s.deleteNode(n) })
		}
	}
	for _, pc := range s.sc.PriorityClasses {
		t, _ := parseTiming(&pc.ObjectMeta)
		s.at(Epoch.Add(t.createAt), func() { s.sched.AddPriorityClass(pc) })
	}
	for _, pdb := range s.sc.PDBs {
		t, _ := parseTiming(&pdb.ObjectMeta)
		s.at(Epoch.Add(t.createAt), func() { s.pdbs = append(s.pdbs, pdb); s.pdbsDirty = true })
	}
	for _, c := range s.sc.CompositePodGroups {
		t, _ := parseTiming(&c.ObjectMeta)
		key := c.Namespace + "/" + c.Name
		s.at(Epoch.Add(t.createAt), func() {
			cur := c.DeepCopy()
			s.composites[key] = cur
			s.sources.SetCRDComposite(cur)
		})
		if t.hasDelete {
			s.at(Epoch.Add(t.deleteAt), func() {
				if cur := s.composites[key]; cur != nil && !s.compositeGone[key] {
					s.compositeGone[key] = true
					s.sources.DeleteCRDComposite(cur)
				}
			})
		}
	}
	for _, pg := range s.sc.PodGroups {
		t, _ := parseTiming(&pg.ObjectMeta)
		s.at(Epoch.Add(t.createAt), func() {
			cur := pg.DeepCopy()
			s.groups[pg.Namespace+"/"+pg.Name] = cur
			s.sources.SetCRD(cur)
		})
		if t.hasDelete {
			s.at(Epoch.Add(t.deleteAt), func() {
				key := pg.Namespace + "/" + pg.Name
				if cur := s.groups[key]; cur != nil && !s.groupGone[key] {
					s.groupGone[key] = true
					s.sources.DeleteCRD(cur)
					s.collectOwnedClaims(cur.UID)
				}
			})
		}
	}
	s.planNative()
	s.planResources()
	for _, p := range s.sc.Pods {
		t, _ := parseTiming(&p.ObjectMeta)
		rec := &podRecord{pod: p, timing: t, phase: PhasePending}
		s.pods[key(p)] = rec
		s.podOrder = append(s.podOrder, rec)
		s.at(Epoch.Add(t.createAt), func() { s.createPod(rec) })
		if t.hasDelete {
			s.at(Epoch.Add(t.deleteAt), func() {
				if rec.created && !rec.gone {
					s.deletePod(rec, nil)
				}
			})
		}
	}
	s.planWorkloads()
}

func (s *Simulator) addNode(n *v1.Node) {
	s.nodeAdded[n.Name] = s.seconds(s.now)
	s.nodes[n.Name] = n
	s.sched.AddNode(n)
	// The node's kubelet starts the pods already bound to it.
	for _, rec := range s.waitingForNode[n.Name] {
		if !rec.gone && !rec.terminating {
			s.startPod(rec, n.Name)
		}
	}
	delete(s.waitingForNode, n.Name)
}

// deleteNode removes a node; its pods are deleted with it (the pod garbage collector would
// do so in a real cluster).
func (s *Simulator) deleteNode(n *v1.Node) {
	s.nodeDeleted[n.Name] = s.seconds(s.now)
	delete(s.nodes, n.Name)
	for _, rec := range s.podOrder {
		if rec.node == n.Name && !rec.gone {
			s.gone(rec)
		}
	}
	s.sched.DeleteNode(n)
}

func (s *Simulator) createPod(rec *podRecord) {
	p := rec.pod.DeepCopy()
	p.CreationTimestamp.Time = s.now
	s.createPodClaims(p)
	s.createEphemeralClaims(p)
	rec.pod = p
	rec.created = true
	created := s.seconds(s.now)
	rec.createdAt = &created
	if n := p.Spec.NodeName; n != "" && s.nodes[n] == nil {
		s.awaitNode(rec, n)
	} else if n != "" {
		s.startPod(rec, n)
	}
	s.sched.AddPod(p)
	s.pdbsDirty = true
}

// startPod runs a pod created bound to a node, as the node's kubelet does.
func (s *Simulator) startPod(rec *podRecord, node string) {
	p := rec.pod
	p.Status.Phase = v1.PodRunning
	rec.phase, rec.node, rec.message = PhaseRunning, node, ""
	t := s.seconds(s.now)
	rec.boundAt = &t
	if p.Status.StartTime == nil {
		start := metav1.NewTime(s.now)
		p.Status.StartTime = &start
	}
	s.nodeUsage.add(node, p, s)
	if rec.timing.hasRunFor {
		s.at(s.now.Add(rec.timing.runFor), func() { s.succeed(rec) })
	}
	s.tell(rec, controllers.Running)
}

// podGCQuarantine is how long the pod garbage collector waits for a missing node before it
// deletes the pods bound to it (kube-controller-manager's podgc).
const podGCQuarantine = 40 * time.Second

// awaitNode keeps a pod bound to a node that does not exist pending, as a cluster does:
// no kubelet runs it. It starts if the node appears; once the node has been missing for
// podGCQuarantine, the pod garbage collector deletes it.
func (s *Simulator) awaitNode(rec *podRecord, node string) {
	rec.message = fmt.Sprintf("bound to node %s, which does not exist: no kubelet runs it, and the pod garbage collector deletes it unless the node appears within %s", node, podGCQuarantine)
	s.waitingForNode[node] = append(s.waitingForNode[node], rec)
	s.at(s.now.Add(podGCQuarantine), func() {
		if rec.gone || rec.phase != PhasePending || s.nodes[node] != nil {
			return
		}
		rec.message = fmt.Sprintf("deleted by the pod garbage collector: bound to node %s, which did not exist for %s", node, podGCQuarantine)
		grace := int64(0)
		s.deletePod(rec, &grace)
	})
}

// Run runs the simulation to its end: when nothing more can happen (no timed event left
// and the scheduler idle), or at Until.
func (s *Simulator) Run(ctx context.Context) (*Report, error) {
	wallStart := time.Now()
	end := Epoch.Add(s.opts.Until)
	for ctx.Err() == nil {
		s.step(ctx)
		next, ok := s.queue.next()
		// The scheduler's own timers (backoff, the periodic retry of unschedulable pods)
		// matter while it has work, or before the next timed event; alone, they would
		// keep an idle simulation running forever.
		if wake, hasWake := s.sched.NextWakeup(); hasWake && (s.sched.Busy() || ok) && (!ok || wake.Before(next)) {
			next, ok = wake, true
		}
		if !ok {
			break
		}
		if !next.After(s.now) {
			next = s.now.Add(time.Millisecond)
		}
		if next.After(end) {
			s.now = end
			break
		}
		s.now = next
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.report(time.Since(wallStart)), nil
}

// step runs everything due now: timed events, the actuator's work, and scheduling cycles
// until the queue has nothing ready.
func (s *Simulator) step(ctx context.Context) {
	for {
		for s.queue.due(s.now) {
			s.queue.pop()()
			s.settle()
		}
		s.refreshPDBs()
		popped := s.sched.ScheduleOne(ctx)
		s.checkCache(popped)
		if !popped {
			// Nothing was ready, but the scheduler may still have queued work (reports of
			// timeouts it checks before popping): settle it, and look again if it did any.
			if s.settle() || s.queue.due(s.now) {
				continue
			}
			return
		}
		s.settle()
	}
}

// settle runs queued actuator work and delivers its completions, until quiet. It reports
// whether there was any.
func (s *Simulator) settle() bool {
	worked := false
	for {
		if s.sched.DrainInbox() {
			worked = true
		}
		if len(s.tasks) == 0 {
			if !s.sched.DrainInbox() {
				return worked
			}
			worked = true
			continue
		}
		task := s.tasks[0]
		s.tasks = s.tasks[1:]
		task()
		worked = true
	}
}

// checkCache checks, with invariants on, that a cycle left no simulation open in the
// cache, and at the end of each step (nothing popped) that every index of the cache equals
// one rebuilt from scratch.
func (s *Simulator) checkCache(popped bool) {
	if !s.opts.CheckInvariants {
		return
	}
	c := s.sched.Cache()
	if n := c.OpenCheckpoints(); n > 0 {
		s.violate("a scheduling cycle left %d cache checkpoint(s) open", n)
	}
	if !popped {
		if err := c.Verify(); err != nil {
			s.violate("cache inconsistent: %v", err)
		}
	}
}

func (s *Simulator) violate(format string, args ...any) {
	if s.opts.CheckInvariants {
		s.violations = append(s.violations, fmt.Sprintf("t=%gs: ", s.seconds(s.now))+fmt.Sprintf(format, args...))
	}
}

// timedQueue orders timed work by time, then by the order it was planned.
type timedQueue struct {
	items timedItems
	seq   int
}

type timedItem struct {
	t   time.Time
	seq int
	fn  func()
}

type timedItems []timedItem

func (h timedItems) Len() int { return len(h) }
func (h timedItems) Less(i, j int) bool {
	if !h[i].t.Equal(h[j].t) {
		return h[i].t.Before(h[j].t)
	}
	return h[i].seq < h[j].seq
}
func (h timedItems) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timedItems) Push(x any)   { *h = append(*h, x.(timedItem)) }
func (h *timedItems) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

func (q *timedQueue) push(t time.Time, fn func()) {
	q.seq++
	heap.Push(&q.items, timedItem{t: t, seq: q.seq, fn: fn})
}

func (q *timedQueue) due(now time.Time) bool {
	return len(q.items) > 0 && !q.items[0].t.After(now)
}

func (q *timedQueue) next() (time.Time, bool) {
	if len(q.items) == 0 {
		return time.Time{}, false
	}
	return q.items[0].t, true
}

func (q *timedQueue) pop() func() { return heap.Pop(&q.items).(timedItem).fn }

var _ framework.Binder = (*Simulator)(nil)

// Parallel runs the items one after the other: the simulator is single-threaded and its
// output must not depend on goroutine scheduling.
func (s *Simulator) Parallel(n int, fn func(i int)) {
	for i := range n {
		fn(i)
	}
}
