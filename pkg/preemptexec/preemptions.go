// Package preemptexec carries out the preemptions the scheduling cycles decide
// (pkg/preemption decides them), asynchronously as KEP-4832 describes: the victims are
// marked leaving and the preemptor nominated at once, the API calls run off the loop while
// a PreEnqueue gate holds the preemptor back, and a failure is reverted. It then follows
// each preemptor until its victims are gone (waits.go). Its methods must be called on the
// scheduling loop; it is the profiles' framework.PreemptionActuator and
// GroupPreemptionActuator.
package preemptexec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/groupapi"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// Condition of a preemption victim, with the wording of the KEPs.
const (
	ReasonPreemptionByScheduler = "PreemptionByScheduler"
	msgPreemptedForPod          = "phalanx: preempting to accommodate a higher priority pod"
	msgPreemptedForGroup        = "phalanx: preempting to accommodate a higher priority podgroup"
)

// GatePlugin is the pseudo-plugin of the PreEnqueue gate that holds a preemptor back
// while its preemption's API calls run; only their end releases it.
const GatePlugin = "PreemptionInProgress"

// Observer is told of every preemption as it is decided, before anything is carried out
// (the simulator's invariant checks).
type Observer interface {
	Preempting(preemptor *framework.PodInfo, node string, victims []*framework.PodInfo)
	PreemptingForGroup(g *framework.GroupInfo, nominations map[*framework.PodInfo]string, victims []*framework.PodInfo)
}

// Options are what Preemptions work with.
type Options struct {
	Actuator *actuator.Actuator
	// Exec runs preemptions' API calls: off the loop (the actuator's executor), or inline
	// for kube-scheduler's behaviour before KEP-4832.
	Exec    actuator.Executor
	Clock   framework.Clock
	Logger  klog.Logger
	Metrics *metrics.Metrics
	Queue   *queue.Queue
	// Snapshot finds victims' groups; Nodes marks victims leaving; Nominations holds the
	// preemptors' nominations.
	Snapshot    framework.Snapshot
	Nodes       *cache.NodeStore
	Nominations *cache.NominationStore
	// GroupAPI writes the status of preemptor groups and of groups preempted whole.
	GroupAPI *groupapi.Writer
	// DropNomination forgets a pending pod's nomination and clears it in its status.
	DropNomination func(*framework.PodInfo)
	// QueueKey is the key of a group's queue entry (its unit's); GroupOf is the group (nil
	// when not known yet) of a queue entry that is a group.
	QueueKey func(*framework.GroupInfo) string
	GroupOf  func(*queue.Entry) *framework.GroupInfo
	Observer Observer
	// ReleaseWaitTimeout bounds how long a preemptor whose victims are gone waits for the
	// devices of their claims to be released before it may preempt again (0: it does not
	// wait for them).
	ReleaseWaitTimeout time.Duration
}

// Preemptions are the preemptions being carried out, and the preemptors waiting for their
// victims to leave.
type Preemptions struct {
	opts Options

	// inFlight holds the preemptions whose API calls are running, by preemptor (a pod's
	// key, or a group's queue key).
	inFlight map[string]*inflightPreemption
	// victimOf and waitingForVictims hold the preemptors waiting for victims to leave, by
	// victim and by preemptor.
	victimOf          map[string]*Wait
	waitingForVictims map[string]*Wait
	// spent are the notes of preemptors whose victims are all gone, by preemptor.
	spent map[string]string
	// releasing are the waits whose victims are gone and whose claims' devices are being
	// released, by preemptor (also in waitingForVictims).
	releasing map[string]*Wait
}

var (
	_ framework.PreemptionActuator      = (*Preemptions)(nil)
	_ framework.GroupPreemptionActuator = (*Preemptions)(nil)
	_ framework.ReleaseWaiter           = (*Preemptions)(nil)
)

// New returns the Preemptions.
func New(opts Options) *Preemptions {
	return &Preemptions{opts: opts, inFlight: map[string]*inflightPreemption{}, victimOf: map[string]*Wait{},
		waitingForVictims: map[string]*Wait{}, spent: map[string]string{}, releasing: map[string]*Wait{}}
}

// inflightPreemption is a preemption whose API calls are running.
type inflightPreemption struct {
	victims []*framework.PodInfo
	// members are a group preemptor's nominated members.
	members []*framework.PodInfo
}

// Preempt carries out a preemption decided in this cycle (framework.PreemptionActuator),
// asynchronously as KEP-4832 describes: the victims are marked as leaving at once, so no
// later cycle counts them as victims again or as room; the preemptor is held back by a
// PreEnqueue gate while a task off the loop sets the victims' DisruptionTarget condition
// and deletes them (in parallel). The nomination is made by the cycle's failure handling,
// right away: in memory, and in the preemptor's status with its PodScheduled condition.
func (pm *Preemptions) Preempt(preemptor *framework.PodInfo, node string, victims []*framework.PodInfo, approximate bool) {
	if logger := pm.opts.Logger.V(2); logger.Enabled() {
		keys := make([]string, len(victims))
		for i, v := range victims {
			keys[i] = v.Key
		}
		logger.Info("Preempting", "preemptor", preemptor.Key, "node", node, "victims", keys)
	}
	for _, v := range victims {
		pm.opts.Nodes.SetLeaving(v, true)
	}
	pm.inFlight[preemptor.Key] = &inflightPreemption{victims: victims}
	pm.await(preemptor.Key, preemptor.Priority, victims)
	pm.markVictimGroups(victims, msgPreemptedForPod)
	if pm.opts.Observer != nil {
		pm.opts.Observer.Preempting(preemptor, node, victims)
	}
	preemptorPod := preemptor.Pod
	pods := make([]*v1.Pod, len(victims))
	for i, v := range victims {
		pods[i] = v.Pod
	}
	pm.opts.Exec.Go(func() {
		start := time.Now()
		err := pm.actuate(preemptorPod, node, pods, approximate)
		result := "success"
		if err != nil {
			result = "error"
		}
		// Observed when the work is done, with its real result (upstream's defer captures
		// the result before it is known).
		pm.opts.Metrics.PreemptionGoroutineDuration.WithLabelValues(result).Observe(time.Since(start).Seconds())
		pm.opts.Metrics.PreemptionGoroutines.WithLabelValues(result).Inc()
		pm.opts.Actuator.Post(func() { pm.done(preemptor.Key, err) })
	})
}

// actuate makes the API calls of a preemption. It runs off the loop. The preemptor's
// nominated node is not among them: the cycle's failure report carries it.
func (pm *Preemptions) actuate(preemptor *v1.Pod, node string, victims []*v1.Pod, approximate bool) error {
	ctx := context.Background()
	errs := make([]error, len(victims))
	pm.opts.Actuator.Exec.Parallel(len(victims), func(i int) {
		errs[i] = pm.evict(ctx, victims[i], msgPreemptedForPod, preemptor,
			fmt.Sprintf("Preempted by pod %s/%s on node %s", preemptor.Namespace, preemptor.Name, node)+budgetNote(approximate))
	})
	return errors.Join(errs...)
}

// done releases the preemptor (a pod, or a group's queue entry). On failure the
// nominations are reverted, victims not deleted are no longer counted as leaving, and the
// preemptor is tried again after a backoff, as after an error.
func (pm *Preemptions) done(key string, err error) {
	inflight := pm.inFlight[key]
	delete(pm.inFlight, key)
	if err == nil {
		// The preemptor waits in the unschedulable pool for its victims to leave; only if
		// an event already tried to move it (and met the gate) does it go on now.
		if entry := pm.opts.Queue.Get(key); entry != nil && entry.Gated() {
			pm.opts.Queue.Activate(key)
		}
		return
	}
	pm.opts.Logger.Info("Preemption failed; reverting the nomination", "preemptor", key, "err", err)
	pm.ForgetDecision(key)
	pm.ForgetVictims(key)
	if inflight != nil {
		for _, v := range inflight.victims {
			if cur := pm.opts.Nodes.Pod(v.Key); cur == v && v.Pod.DeletionTimestamp == nil {
				pm.opts.Nodes.SetLeaving(v, false)
			}
		}
		for _, m := range inflight.members {
			pm.opts.DropNomination(m)
		}
	}
	msg := "preemption failed, will retry: " + err.Error()
	if entry := pm.opts.Queue.Get(key); entry != nil {
		switch {
		case entry.Pod != nil:
			pm.opts.DropNomination(entry.Pod)
			pm.opts.Actuator.Event(entry.Pod.Pod, nil, v1.EventTypeWarning, "FailedScheduling", "Preempting", msg)
		case entry.Group != nil:
			if g := pm.opts.GroupOf(entry); g != nil {
				pm.opts.GroupAPI.SetCondition(g, false, v1alpha1.PodGroupReasonUnschedulable, msg)
				pm.opts.Actuator.Event(g.Object(), nil, v1.EventTypeWarning, "FailedScheduling", "Preempting", msg)
			}
		}
	}
	pm.opts.Queue.Backoff(key)
}

// PreemptForGroup carries out a group's preemption (framework.GroupPreemptionActuator):
// victims are marked leaving, the members are nominated to their nodes at once, so the
// room is held for the whole gang; the victims' and victim groups' conditions, the
// deletions and the members' nominatedNodeName are written off the loop while the group
// waits behind a gate.
func (pm *Preemptions) PreemptForGroup(g *framework.GroupInfo, nominations map[*framework.PodInfo]string, victims []*framework.PodInfo, approximate bool) {
	key := pm.opts.QueueKey(g)
	members := make([]*framework.PodInfo, 0, len(nominations))
	for m := range nominations {
		members = append(members, m)
	}
	slices.SortFunc(members, func(a, b *framework.PodInfo) int { return strings.Compare(a.Key, b.Key) })
	for _, m := range members {
		pm.opts.Nominations.Nominate(m, nominations[m])
	}
	for _, v := range victims {
		pm.opts.Nodes.SetLeaving(v, true)
	}
	pm.inFlight[key] = &inflightPreemption{victims: victims, members: members}
	pm.await(key, g.Priority, victims)
	if pm.opts.Observer != nil {
		pm.opts.Observer.PreemptingForGroup(g, nominations, victims)
	}
	pm.markVictimGroups(victims, msgPreemptedForGroup)
	preemptor := g.Object()
	who := "podgroup " + g.Key
	if g.IsComposite() {
		who = "compositepodgroup " + g.Key
	}
	type victimPod struct {
		pod  *v1.Pod
		node string
	}
	vps := make([]victimPod, len(victims))
	for i, v := range victims {
		vps[i] = victimPod{v.Pod, v.NodeName}
	}
	nominated := make([]*v1.Pod, len(members))
	nodes := make([]string, len(members))
	for i, m := range members {
		nominated[i], nodes[i] = m.Pod, nominations[m]
	}
	pm.opts.Exec.Go(func() {
		start := time.Now()
		ctx := context.Background()
		errs := make([]error, len(vps))
		pm.opts.Actuator.Exec.Parallel(len(vps), func(i int) {
			errs[i] = pm.evict(ctx, vps[i].pod, msgPreemptedForGroup, preemptor,
				fmt.Sprintf("Preempted by %s on node %s", who, vps[i].node)+budgetNote(approximate))
		})
		err := errors.Join(errs...)
		if err == nil {
			merrs := make([]error, len(nominated))
			pm.opts.Actuator.Exec.Parallel(len(nominated), func(i int) {
				merrs[i] = pm.opts.Actuator.Client.PatchPodStatus(ctx, nominated[i], nil, &nodes[i])
			})
			err = errors.Join(merrs...)
		}
		result := "success"
		if err != nil {
			result = "error"
		}
		pm.opts.Metrics.PreemptionGoroutineDuration.WithLabelValues(result).Observe(time.Since(start).Seconds())
		pm.opts.Metrics.PreemptionGoroutines.WithLabelValues(result).Inc()
		pm.opts.Actuator.Post(func() { pm.done(key, err) })
	})
}

// budgetNote is what a Preempted event adds when the victim search ran out of budget.
func budgetNote(approximate bool) string {
	if !approximate {
		return ""
	}
	return " (the victim search ran out of budget: the least disruptive set found so far)"
}

// evict sets a victim's DisruptionTarget condition, deletes it gracefully and records the
// Preempted event naming the preemptor. It runs off the loop.
func (pm *Preemptions) evict(ctx context.Context, victim *v1.Pod, condMsg string, preemptor runtime.Object, eventMsg string) error {
	cond := &v1.PodCondition{
		Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: ReasonPreemptionByScheduler,
		Message: condMsg, LastTransitionTime: metav1.NewTime(pm.opts.Clock.Now()),
	}
	if err := pm.opts.Actuator.Client.PatchPodStatus(ctx, victim, cond, nil); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("setting the DisruptionTarget condition of %s/%s: %w", victim.Namespace, victim.Name, err)
	}
	if err := pm.opts.Actuator.Client.DeletePod(ctx, victim, nil); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s/%s: %w", victim.Namespace, victim.Name, err)
	}
	pm.opts.Actuator.Event(victim, preemptor, v1.EventTypeNormal, "Preempted", "Preempting", eventMsg)
	return nil
}

// markVictimGroups gives the groups preempted whole their own DisruptionTarget condition
// and the Preempted phase (KEP-5710): PodGroups of disruption mode All, and the composites
// of mode All above the victims. Members of Single groups are preempted one by one and
// their group's status is left alone.
func (pm *Preemptions) markVictimGroups(victims []*framework.PodInfo, msg string) {
	seen := map[string]bool{}
	var groups []*framework.GroupInfo
	for _, v := range victims {
		k := framework.GroupKey(v)
		if k == "" {
			continue
		}
		for _, g := range []*framework.GroupInfo{pm.opts.Snapshot.Group(k), framework.DisruptionRoot(pm.opts.Snapshot, k)} {
			if g != nil && g.DisruptAll() && !seen[pm.opts.QueueKey(g)] {
				seen[pm.opts.QueueKey(g)] = true
				groups = append(groups, g)
			}
		}
	}
	slices.SortFunc(groups, func(a, b *framework.GroupInfo) int { return strings.Compare(pm.opts.QueueKey(a), pm.opts.QueueKey(b)) })
	for _, g := range groups {
		pm.opts.GroupAPI.Preempted(g, msg)
	}
}

// Gate holds a pod (or a group) back, by its queue key, while its preemption's API calls
// run.
func (pm *Preemptions) Gate(key string) *framework.Status {
	if _, ok := pm.inFlight[key]; ok {
		return framework.NewStatus(framework.Pending, "waiting for the preemption of its victims to be carried out").WithPlugin(GatePlugin)
	}
	return nil
}
