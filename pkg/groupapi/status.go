// Package groupapi is what the scheduler writes to the API server about pod groups: the
// status of PodGroups and CompositePodGroups (their PodGroupScheduled condition and phase,
// one write in flight per group, the latest winning; DisruptionTarget when preempted whole)
// and the ResourceClaims a PodGroup shares, made from its templates and released when no
// member runs (claims.go). The scheduling loop tells it what it decided; it needs of the
// cluster state only the groups and claims it writes about (Groups, Claims), and runs its
// calls off the loop through the actuator.
package groupapi

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Groups finds the PodGroups and CompositePodGroups the scheduler knows (the cache's group
// store): a status written is set on them at once, so later decisions see it before the
// informer reports it back.
type Groups interface {
	Group(key string) *framework.GroupInfo
	Composite(key string) *framework.GroupInfo
}

// Claims finds the ResourceClaims the scheduler knows (the cache's device store).
type Claims interface {
	Claim(key string) *framework.ClaimInfo
}

// Options are what a Writer works with.
type Options struct {
	Actuator *actuator.Actuator
	Clock    framework.Clock
	Logger   klog.Logger
	Groups   Groups
	Claims   Claims
	// Resources is the driver's API of storage and DRA objects (nil without one).
	Resources framework.ResourceClient
	// NativeClaimsUpstream says upstream's ResourceClaim controller makes and releases the
	// claims of Kubernetes' own PodGroups (a real cluster); the Writer then leaves them
	// alone.
	NativeClaimsUpstream bool
	// ClaimMade is told, on the loop, of a group whose status now names a claim made for
	// it.
	ClaimMade func(*v1alpha1.PodGroup)
}

// Writer writes the status of pod groups and the claims they share. Its methods must be
// called on the scheduling loop.
type Writer struct {
	opts Options
	// writers serialise each group's status writes, and conditions are the last
	// PodGroupScheduled condition written (to write only changes), by objectKey.
	writers    map[string]*statusWriter
	conditions map[string]string
	// claimsMaking are the group claims being made from templates.
	claimsMaking map[string]bool
}

// New returns a Writer.
func New(opts Options) *Writer {
	return &Writer{opts: opts, writers: map[string]*statusWriter{}, conditions: map[string]string{},
		claimsMaking: map[string]bool{}}
}

// objectKey names a PodGroup or a CompositePodGroup by kind and namespace/name: the two
// kinds may share a name.
func objectKey(composite bool, key string) string {
	if composite {
		return "CompositePodGroup:" + key
	}
	return "PodGroup:" + key
}

// keyOf is a group's objectKey.
func keyOf(g *framework.GroupInfo) string { return objectKey(g.IsComposite(), g.Key) }

// ForgetGroup drops what is kept about a PodGroup that is gone, by namespace/name.
func (w *Writer) ForgetGroup(key string) { w.forget(objectKey(false, key)) }

// ForgetComposite drops what is kept about a CompositePodGroup that is gone.
func (w *Writer) ForgetComposite(key string) { w.forget(objectKey(true, key)) }

func (w *Writer) forget(key string) {
	delete(w.writers, key)
	delete(w.conditions, key)
}

// SetCondition writes the group's PodGroupScheduled condition (and phase) when it changes,
// off the loop; the group is a PodGroup or a CompositePodGroup. It reports whether it
// changed, so callers emit events only then.
func (w *Writer) SetCondition(g *framework.GroupInfo, scheduled bool, reason, msg string) bool {
	if g == nil {
		return false
	}
	status := metav1.ConditionFalse
	phase := v1alpha1.PodGroupPhasePending
	if scheduled {
		status, phase = metav1.ConditionTrue, v1alpha1.PodGroupPhaseScheduled
	}
	sig := string(status) + "\x00" + reason + "\x00" + msg
	if w.conditions[keyOf(g)] == sig {
		return false
	}
	w.conditions[keyOf(g)] = sig
	w.writeStatus(g, phase, metav1.Condition{
		Type: v1alpha1.PodGroupScheduled, Status: status, Reason: reason, Message: msg,
	})
	return true
}

// Preempted gives a group preempted whole its DisruptionTarget condition and the Preempted
// phase (KEP-5710); its next PodGroupScheduled condition is written afresh.
func (w *Writer) Preempted(g *framework.GroupInfo, msg string) {
	w.writeStatus(g, v1alpha1.PodGroupPhasePreempted, metav1.Condition{
		Type: v1alpha1.DisruptionTarget, Status: metav1.ConditionTrue,
		Reason: v1alpha1.PodGroupReasonPreemptionByScheduler, Message: msg,
	})
	delete(w.conditions, keyOf(g))
}

// statusWriter serialises the status writes of one group: one write in flight at a
// time, and the latest status wins. Writes issued close together would otherwise race
// (each on its own goroutine in a real cluster), and an older one landing last, or
// re-applied after a conflict, would leave a stale condition for good.
type statusWriter struct {
	uid types.UID
	// desired is the last status phalanx decided (a PodGroup or a CompositePodGroup);
	// every write builds on it.
	desired  runtime.Object
	inFlight bool
	// dirty says desired changed while a write was in flight.
	dirty bool
}

// writeStatus sets a condition and the phase on the group's desired status and writes
// it, after the write in flight if there is one.
func (w *Writer) writeStatus(g *framework.GroupInfo, phase v1alpha1.PodGroupPhase, cond metav1.Condition) {
	gen := g.Meta().Generation
	cond.ObservedGeneration = gen
	cond.LastTransitionTime = metav1.NewTime(w.opts.Clock.Now())
	set := func(conditions *[]metav1.Condition, p *v1alpha1.PodGroupPhase, observed *int64) {
		meta.SetStatusCondition(conditions, cond)
		if phase != "" {
			*p = phase
		}
		*observed = gen
	}
	if g.IsComposite() {
		w.updateCompositeStatus(g.Composite, func(st *v1alpha1.CompositePodGroupStatus) {
			set(&st.Conditions, &st.Phase, &st.ObservedGeneration)
		})
		return
	}
	w.updateStatus(g.PodGroup, func(st *v1alpha1.PodGroupStatus) {
		set(&st.Conditions, &st.Phase, &st.ObservedGeneration)
	})
}

// writer returns the status writer of an object (a CompositePodGroup when composite) and
// its objectKey, anew for a new object of the same name.
func (w *Writer) writer(obj metav1.Object, composite bool) (string, *statusWriter) {
	key := objectKey(composite, obj.GetNamespace()+"/"+obj.GetName())
	sw := w.writers[key]
	if sw == nil || sw.uid != obj.GetUID() {
		sw = &statusWriter{uid: obj.GetUID()}
		w.writers[key] = sw
	}
	return key, sw
}

// updateStatus applies a change to the group's desired status and writes it, after the
// write in flight if there is one.
func (w *Writer) updateStatus(pg *v1alpha1.PodGroup, change func(*v1alpha1.PodGroupStatus)) {
	key, sw := w.writer(pg, false)
	next := pg.DeepCopy()
	if desired, ok := sw.desired.(*v1alpha1.PodGroup); ok {
		next.Status = *desired.Status.DeepCopy()
		if next.Status.ResourceClaimStatuses == nil {
			// Written by an earlier run of phalanx, known from the informer.
			next.Status.ResourceClaimStatuses = pg.Status.ResourceClaimStatuses
		}
	}
	change(&next.Status)
	sw.desired = next
	if g := w.opts.Groups.Group(pg.Namespace + "/" + pg.Name); g != nil && g.PodGroup == pg {
		// Later decisions see this status even before the informer reports it back.
		g.PodGroup = next
	}
	w.write(key, sw)
}

// updateCompositeStatus is updateStatus for a CompositePodGroup.
func (w *Writer) updateCompositeStatus(c *v1alpha1.CompositePodGroup, change func(*v1alpha1.CompositePodGroupStatus)) {
	key, sw := w.writer(c, true)
	next := c.DeepCopy()
	if desired, ok := sw.desired.(*v1alpha1.CompositePodGroup); ok {
		next.Status = *desired.Status.DeepCopy()
	}
	change(&next.Status)
	sw.desired = next
	if g := w.opts.Groups.Composite(c.Namespace + "/" + c.Name); g != nil && g.Composite == c {
		g.Composite = next
	}
	w.write(key, sw)
}

// write writes the desired status now, or after the write in flight.
func (w *Writer) write(key string, sw *statusWriter) {
	if sw.inFlight {
		sw.dirty = true
		return
	}
	w.flush(key, sw)
}

// flush writes the desired status off the loop, and again when it changed meanwhile.
func (w *Writer) flush(key string, sw *statusWriter) {
	obj := sw.desired
	sw.inFlight, sw.dirty = true, false
	act := w.opts.Actuator
	act.Async(func(ctx context.Context) error {
		return act.Client.UpdateStatus(ctx, obj)
	}, func(err error) {
		sw.inFlight = false
		if err != nil {
			w.opts.Logger.V(2).Info("Could not update the status", "group", key, "err", err)
		}
		if sw.dirty && w.writers[key] == sw {
			w.flush(key, sw)
		}
	})
}
