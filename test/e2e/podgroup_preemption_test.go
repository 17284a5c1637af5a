//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// Wording phalanx uses for workload-aware preemption (pkg/scheduler/preempt.go and
// groupcycle.go).
const (
	msgPreemptedForPod      = "phalanx: preempting to accommodate a higher priority pod"
	msgPreemptedForGroup    = "phalanx: preempting to accommodate a higher priority podgroup"
	msgWaitingForPreemption = "pod group is waiting for podgroup preemption to complete"
)

// pinLabel is a node label whose value is unique to a test: its pods select it, so they
// land on its nodes only, whatever other tests left behind.
const pinLabel = "e2e.phalanx.dev/test"

// pin makes pod require the nodes labelled pinLabel=value.
func pin(pod *corev1.Pod, value string) *corev1.Pod {
	pod.Spec.NodeSelector = map[string]string{pinLabel: value}
	return pod
}

// pinnedNode creates a ready node of cpu CPUs (8Gi) that pods pinned to pinValue select,
// and returns its name.
func pinnedNode(t *testing.T, c *e2eutil.Cluster, cpu, pinValue string) string {
	t.Helper()
	n := c.CreateNode(t, e2eutil.Node{CPU: cpu, Memory: "8Gi", Labels: map[string]string{pinLabel: pinValue}})
	c.WaitNodeReady(t, n.Name)
	return n.Name
}

// member makes pod a member of the PodGroup group.
func member(pod *corev1.Pod, group string) *corev1.Pod {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[v1alpha1.LabelPodGroup] = group
	return pod
}

// gangGroup is a gang PodGroup of minCount taking its priority from class.
func gangGroup(ns, name string, minCount int32, class string, mode *v1alpha1.DisruptionMode) *v1alpha1.PodGroup {
	return &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.PodGroupSpec{
			SchedulingPolicy:  v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: minCount}},
			DisruptionMode:    mode,
			PriorityClassName: class,
		},
	}
}

var (
	disruptSingle = &v1alpha1.DisruptionMode{Single: &v1alpha1.SingleDisruptionMode{}}
	disruptAll    = &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}
)

// groupAPI is the API a test's pod groups are made with: phalanx's PodGroup CRD, whose
// members carry its label, or Kubernetes' own scheduling.k8s.io PodGroups, whose
// members name them in spec.schedulingGroup (phalanx reads both, --podgroup-source=auto).
type groupAPI struct {
	name   string
	native bool
}

var groupAPIs = []groupAPI{{"crd", false}, {"native", true}}

// createGang creates a gang of minCount taking its priority from class, with the
// disruption mode (nil: the API's default, single).
func (g groupAPI) createGang(t *testing.T, c *e2eutil.Cluster, ns, name string, minCount int32, class string, mode *v1alpha1.DisruptionMode) {
	t.Helper()
	if !g.native {
		c.CreatePodGroup(t, gangGroup(ns, name, minCount, class, mode))
		return
	}
	pg := &nativegroup.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy:  schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}},
			PriorityClassName: class,
		},
	}
	switch {
	case mode == nil:
	case mode.All != nil:
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	default:
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	}
	c.CreateNativePodGroup(t, pg)
}

// member makes pod a member of the group.
func (g groupAPI) member(pod *corev1.Pod, group string) *corev1.Pod {
	if !g.native {
		return member(pod, group)
	}
	pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr(group)}
	return pod
}

func (g groupAPI) waitCondition(t *testing.T, c *e2eutil.Cluster, ns, name, typ string, status metav1.ConditionStatus, message string, timeout time.Duration) {
	t.Helper()
	if g.native {
		c.WaitNativePodGroupCondition(t, ns, name, typ, status, message, timeout)
	} else {
		c.WaitPodGroupCondition(t, ns, name, typ, status, message, timeout)
	}
}

func (g groupAPI) record(t *testing.T, c *e2eutil.Cluster, ns string) *e2eutil.PodGroupHistory {
	if g.native {
		return c.RecordNativePodGroups(t, ns)
	}
	return c.RecordPodGroups(t, ns)
}

// checkRef checks that an event names a group of this API.
func (g groupAPI) checkRef(t *testing.T, c *e2eutil.Cluster, what string, ref *corev1.ObjectReference, name string) {
	t.Helper()
	want := v1alpha1.SchemeGroupVersion.String()
	if g.native {
		want = c.NativeVersion(t)
	}
	if ref == nil || ref.Kind != "PodGroup" || ref.APIVersion != want || ref.Name != name {
		t.Errorf("%s names %+v, want %s PodGroup %s", what, ref, want, name)
	}
}

// TestPodGroupPreemption is the four integration cases of KEP-5710 (workload-aware
// preemption) on a real API server, with what users see of them, once with phalanx's
// PodGroups and once with Kubernetes' own (disruption modes Pod and PodGroup).
//
// Two nodes of 4 CPUs are full with the four members (2 CPUs each, two per node, grace
// period 4 s) of a low-priority gang "low". A higher-priority preemptor arrives that
// needs the room of one member: a gang "high" of two members of 1 CPU, or a pod "high" of
// 2 CPUs.
//
//   - disruption mode single: exactly one member of low is preempted; the other three keep
//     running and low gets no DisruptionTarget condition;
//   - disruption mode all: the four members go together, although one would be enough, and
//     low gets DisruptionTarget=True (PreemptionByScheduler) and the phase Preempted.
//
// Each victim gets DisruptionTarget=True (reason PreemptionByScheduler, the message for a
// pod or a podgroup preemptor) and one Preempted event naming the preemptor. The preemptor
// is nominated (status.nominatedNodeName) before it is bound, and bound only when there is
// room for it; a group preemptor's PodGroupScheduled condition says it waits for the
// preemption, then turns True, and none of its members is bound before all of them fit
// (the gang starts whole or not at all).
func TestPodGroupPreemption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    *v1alpha1.DisruptionMode
		byGroup bool
		victims int // among low's four members
	}{
		{"single-by-podgroup", disruptSingle, true, 1},
		{"all-by-podgroup", disruptAll, true, 4},
		{"single-by-pod", disruptSingle, false, 1},
		{"all-by-pod", disruptAll, false, 4},
	} {
		for _, api := range groupAPIs {
			t.Run(api.name+"/"+tc.name, func(t *testing.T) {
				testPodGroupPreemption(t, api, tc.mode, tc.byGroup, tc.victims)
			})
		}
	}
}

func testPodGroupPreemption(t *testing.T, api groupAPI, mode *v1alpha1.DisruptionMode, byGroup bool, wantVictims int) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "pgp")
	nodes := []string{pinnedNode(t, c, "4", pinValue), pinnedNode(t, c, "4", pinValue)}
	low := c.CreatePriorityClass(t, "low", 10)
	high := c.CreatePriorityClass(t, "high", 1000)
	h := c.RecordPods(t, ns)
	tl := c.RecordPodTimeline(t, ns)
	gh := api.record(t, c, ns)

	p := c.StartPhalanx(t, "pg-preemption")
	p.WaitReady(t)

	// The victim gang, placed by phalanx: 4 x 2 CPUs on 2 x 4 CPUs, two per node. The
	// group comes first, as a controller creates it (phalanx writes its "waiting for
	// minCount pods" condition as members arrive).
	lowMembers := []string{"low-0", "low-1", "low-2", "low-3"}
	api.createGang(t, c, ns, "low", 4, low, mode)
	for _, name := range lowMembers {
		c.CreatePod(t, pin(api.member(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "2", Memory: "100Mi",
			Priority: low, GracePeriod: ptr[int64](4)}.Build(), "low"), pinValue))
	}
	lowBound := c.WaitPodsBound(t, ns, lowMembers, time.Minute)
	perNode := map[string]int{}
	for _, pod := range lowBound {
		perNode[pod.Spec.NodeName]++
	}
	if perNode[nodes[0]] != 2 || perNode[nodes[1]] != 2 {
		t.Fatalf("low's members per node: %v, want 2 on each of %v", perNode, nodes)
	}
	for _, name := range lowMembers {
		c.WaitPodRunning(t, ns, name)
	}
	api.waitCondition(t, c, ns, "low", v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)

	// The preemptor: the room of one of low's members would do.
	var preemptors []string
	if byGroup {
		preemptors = []string{"high-0", "high-1"}
		api.createGang(t, c, ns, "high", 2, high, nil)
		for _, name := range preemptors {
			c.CreatePod(t, pin(api.member(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1", Memory: "100Mi",
				Priority: high}.Build(), "high"), pinValue))
		}
		// While the victims terminate, the group says it waits for them.
		api.waitCondition(t, c, ns, "high", v1alpha1.PodGroupScheduled, metav1.ConditionFalse, msgWaitingForPreemption, time.Minute)
	} else {
		preemptors = []string{"high"}
		c.CreatePod(t, pin(e2eutil.Pod{Namespace: ns, Name: "high", SchedulerName: sched, CPU: "2", Memory: "100Mi",
			Priority: high}.Build(), pinValue))
	}

	bound := c.WaitPodsBound(t, ns, preemptors, 2*time.Minute)
	if byGroup {
		api.waitCondition(t, c, ns, "high", v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
	}
	// Victims go after their grace period; survivors must still be there then.
	var victims, survivors []string
	for _, name := range lowMembers {
		if h.Deleting(name) {
			victims = append(victims, name)
		} else {
			survivors = append(survivors, name)
		}
	}
	for _, v := range victims {
		c.WaitPodGone(t, ns, v, time.Minute)
		c.WaitEvent(t, ns, v, "Preempted", time.Minute)
	}
	for _, name := range preemptors {
		c.WaitEvent(t, ns, name, "Scheduled", time.Minute)
	}
	if byGroup {
		c.WaitEvent(t, ns, "high", "Scheduled", time.Minute)
	}
	// Let a preemption that should not happen (a second one, or of a survivor) show up.
	time.Sleep(2 * time.Second)
	for _, name := range lowMembers {
		if h.Deleting(name) && !slices.Contains(victims, name) {
			victims = append(victims, name)
			survivors = slices.DeleteFunc(survivors, func(s string) bool { return s == name })
		}
	}
	t.Logf("victims %v, survivors %v, preemptors bound %v", victims, survivors, nodesOf(bound))

	// How many members went.
	if len(victims) != wantVictims {
		t.Errorf("%d of low's members preempted (%v), want %d", len(victims), victims, wantVictims)
	}
	for _, s := range survivors {
		pod, err := c.Client.CoreV1().Pods(ns).Get(ctx, s, metav1.GetOptions{})
		if err != nil || !e2eutil.PodRunning(pod) || pod.DeletionTimestamp != nil {
			t.Errorf("survivor %s not running: %v", s, err)
		}
		if cond := h.Condition(s, corev1.DisruptionTarget, corev1.ConditionTrue); cond != nil {
			t.Errorf("survivor %s has a DisruptionTarget condition %+v", s, cond)
		}
	}

	// What the victims show.
	condMsg, related, relatedKind := msgPreemptedForPod, "high", "Pod"
	if byGroup {
		condMsg, relatedKind = msgPreemptedForGroup, "PodGroup"
	}
	events := c.Events(t, ns)
	for _, v := range victims {
		cond := h.Condition(v, corev1.DisruptionTarget, corev1.ConditionTrue)
		if cond == nil || cond.Reason != "PreemptionByScheduler" || cond.Message != condMsg {
			t.Errorf("%s: DisruptionTarget condition %+v, want True, PreemptionByScheduler, %q", v, cond, condMsg)
		}
		evs := e2eutil.EventsFor(events, v, "Preempted")
		if len(evs) != 1 || e2eutil.EventCount(&evs[0]) != 1 {
			t.Errorf("%s: %d Preempted events, want 1", v, len(evs))
			continue
		}
		ev := evs[0]
		var want string
		if byGroup {
			want = fmt.Sprintf("Preempted by podgroup %s/high on node %s", ns, lowBound[v].Spec.NodeName)
		} else {
			// The node the preemptor was nominated to, where the room was made.
			var nominated string
			if noms := h.Nominations("high"); len(noms) > 0 {
				nominated = noms[0]
			}
			want = fmt.Sprintf("Preempted by pod %s/high on node %s", ns, nominated)
		}
		if ev.Note != want || ev.Type != corev1.EventTypeNormal || ev.ReportingController != "phalanx" {
			t.Errorf("%s: Preempted event %s from %s %q, want Normal from phalanx %q", v, ev.Type, ev.ReportingController, ev.Note, want)
		}
		if ev.Related == nil || ev.Related.Name != related || ev.Related.Kind != relatedKind {
			t.Errorf("%s: Preempted event related to %+v, want %s %s", v, ev.Related, relatedKind, related)
		} else if byGroup {
			api.checkRef(t, c, v+": Preempted event's related object", ev.Related, related)
		}
	}

	// What the victim group shows: its own DisruptionTarget only when taken whole.
	lowConds := gh.Conditions("low", v1alpha1.DisruptionTarget)
	if mode.All != nil {
		if len(lowConds) != 1 || lowConds[0].Status != metav1.ConditionTrue || lowConds[0].Reason != v1alpha1.PodGroupReasonPreemptionByScheduler || lowConds[0].Message != condMsg {
			t.Errorf("low's DisruptionTarget conditions %+v, want one, True, %s, %q", lowConds, v1alpha1.PodGroupReasonPreemptionByScheduler, condMsg)
		}
		if phases := gh.Phases("low"); !api.native && !slices.Contains(phases, v1alpha1.PodGroupPhasePreempted) {
			t.Errorf("low's phases %v, want Preempted among them", phases)
		}
	} else if len(lowConds) > 0 {
		t.Errorf("low (disruption mode single) got DisruptionTarget conditions %+v", lowConds)
	}

	// The preemptor: nominated before it is bound, bound once, never deleted. With
	// disruption mode single the room is made on one node only, the nominated one; with
	// all, room appears on both nodes and the preemptor may be bound to whichever has
	// enough of it first (as kube-scheduler does when the nominated node is not ready).
	for _, name := range preemptors {
		node := bound[name].Spec.NodeName
		noms := h.Nominations(name)
		if len(noms) != 1 || (mode.Single != nil && noms[0] != node) || !slices.Contains(nodes, noms[0]) {
			t.Errorf("%s: nominatedNodeName history %v, bound to %s", name, noms, node)
		}
		h.WaitBound(t, name)
		if got := h.Nodes(name); len(got) != 1 {
			t.Errorf("%s bound to %v", name, got)
		}
		if n, b := tl.FirstNominated(name), tl.FirstBound(name); n < 0 || n > b {
			t.Errorf("%s: nominated at change %d, bound at %d: want the nomination first", name, n, b)
		}
		if h.Deleting(name) {
			t.Errorf("preemptor %s was deleted", name)
		}
	}
	// All or nothing: when the first preemptor pod is bound, there is room for every one
	// of them where they end up, next to the pods still there (victims terminating
	// included: kwok keeps them running until their grace period ends).
	firstBound := -1
	for _, name := range preemptors {
		if b := tl.FirstBound(name); firstBound < 0 || b < firstBound {
			firstBound = b
		}
	}
	if firstBound < 0 {
		t.Fatalf("no binding of %v in the pod timeline", preemptors)
	}
	used := map[string]int64{}
	for name, pod := range tl.PodsAt(firstBound) {
		if pod.Spec.NodeName != "" && !slices.Contains(preemptors, name) {
			used[pod.Spec.NodeName] += pod.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
		}
	}
	for _, name := range preemptors {
		used[bound[name].Spec.NodeName] += bound[name].Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
	}
	for _, n := range nodes {
		if used[n] > 4000 {
			t.Errorf("node %s: at the first binding of a preemptor (change %d), %dm CPU requested with every preemptor there, allocatable 4000m: bound before all fit", n, firstBound, used[n])
		}
	}
	if byGroup {
		conds := gh.Conditions("high", v1alpha1.PodGroupScheduled)
		var waited bool
		for _, cd := range conds {
			if cd.Status == metav1.ConditionFalse && cd.Reason == v1alpha1.PodGroupReasonUnschedulable && cd.Message == msgWaitingForPreemption {
				waited = true
			}
		}
		if !waited {
			t.Errorf("high's PodGroupScheduled conditions %+v: none False/Unschedulable %q", conds, msgWaitingForPreemption)
		}
		if last := conds[len(conds)-1]; last.Status != metav1.ConditionTrue || last.Reason != v1alpha1.PodGroupReasonScheduled {
			t.Errorf("high's PodGroupScheduled is %+v, want True/Scheduled", last)
		}
		evs := e2eutil.EventsFor(events, "high", "Scheduled")
		if want := fmt.Sprintf("Scheduled 2 pods of pod group %s/high", ns); len(evs) != 1 || evs[0].Note != want {
			t.Errorf("high's Scheduled events %v, want one %q", notes(evs), want)
		} else {
			api.checkRef(t, c, "high's Scheduled event", &evs[0].Regarding, "high")
		}
		if v, ok, err := p.Metric(ctx, "scheduler_podgroup_preemption_attempts_total", `result="success"`); err != nil || !ok || v != 1 {
			t.Errorf("scheduler_podgroup_preemption_attempts_total{result=success} = %v (found %v, err %v), want 1", v, ok, err)
		}
		if v, ok, err := p.Metric(ctx, "scheduler_podgroup_preemption_victims_sum", ""); err != nil || !ok || v != float64(wantVictims) {
			t.Errorf("scheduler_podgroup_preemption_victims_sum = %v (found %v, err %v), want %d", v, ok, err, wantVictims)
		}
	} else {
		if v, ok, err := p.Metric(ctx, "scheduler_preemption_victims_count", ""); err != nil || !ok || v != 1 {
			t.Errorf("scheduler_preemption_victims_count = %v (found %v, err %v), want 1 preemption", v, ok, err)
		}
		if v, ok, err := p.Metric(ctx, "scheduler_preemption_victims_sum", ""); err != nil || !ok || v != float64(wantVictims) {
			t.Errorf("scheduler_preemption_victims_sum = %v (found %v, err %v), want %d", v, ok, err, wantVictims)
		}
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

func nodesOf(pods map[string]*corev1.Pod) map[string]string {
	out := map[string]string{}
	for n, p := range pods {
		out[n] = p.Spec.NodeName
	}
	return out
}

// notes returns the events' notes.
func notes(evs []eventsv1.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Note)
	}
	return out
}
