package scheduler

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// groupAPI is what the scheduler writes about PodGroups: their status (conditions and
// phase, one write in flight per group, the latest winning) and the ResourceClaims a group
// shares, made from its templates and released when no member runs (groupclaims.go).
type groupAPI struct {
	actuator *actuator.Actuator
	clock    framework.Clock
	logger   klog.Logger
	cache    *cache.Cache
	// resources is the driver's API of storage and DRA objects (nil without one).
	resources framework.ResourceClient
	// nativeClaimsUpstream says upstream's ResourceClaim controller makes and releases the
	// claims of Kubernetes' own PodGroups (see Options.NativeGroupClaimsUpstream).
	nativeClaimsUpstream bool
	// writers serialise each group's status writes, and conditions are the last
	// PodGroupScheduled condition written (to write only changes), by queue key.
	writers    map[string]*groupStatusWriter
	conditions map[string]string
	// claimsMaking are the group claims being made from templates.
	claimsMaking map[string]bool
	// claimMade is told of a group whose status now names a claim it made.
	claimMade func(*v1alpha1.PodGroup)
}

// forget drops what is kept about a group that is gone, by its queue key.
func (api *groupAPI) forget(key string) {
	delete(api.writers, key)
	delete(api.conditions, key)
}

// setCondition writes the group's PodGroupScheduled condition (and phase) when it changes,
// off the loop; the group is a PodGroup or a CompositePodGroup. It reports whether it
// changed, so callers emit events only then.
func (api *groupAPI) setCondition(g *framework.GroupInfo, scheduled bool, reason, msg string) bool {
	if g == nil {
		return false
	}
	status := metav1.ConditionFalse
	phase := v1alpha1.PodGroupPhasePending
	if scheduled {
		status, phase = metav1.ConditionTrue, v1alpha1.PodGroupPhaseScheduled
	}
	sig := string(status) + "\x00" + reason + "\x00" + msg
	if api.conditions[unitKey(g)] == sig {
		return false
	}
	api.conditions[unitKey(g)] = sig
	api.writeStatus(g, phase, metav1.Condition{
		Type: v1alpha1.PodGroupScheduled, Status: status, Reason: reason, Message: msg,
	})
	return true
}

// groupStatusWriter serialises the status writes of one group: one write in flight at a
// time, and the latest status wins. Writes issued close together would otherwise race
// (each on its own goroutine in a real cluster), and an older one landing last, or
// re-applied after a conflict, would leave a stale condition for good.
type groupStatusWriter struct {
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
func (api *groupAPI) writeStatus(g *framework.GroupInfo, phase v1alpha1.PodGroupPhase, cond metav1.Condition) {
	gen := g.Meta().Generation
	cond.ObservedGeneration = gen
	cond.LastTransitionTime = metav1.NewTime(api.clock.Now())
	set := func(conditions *[]metav1.Condition, p *v1alpha1.PodGroupPhase, observed *int64) {
		meta.SetStatusCondition(conditions, cond)
		if phase != "" {
			*p = phase
		}
		*observed = gen
	}
	if g.IsComposite() {
		api.updateCompositeStatus(g.Composite, func(st *v1alpha1.CompositePodGroupStatus) {
			set(&st.Conditions, &st.Phase, &st.ObservedGeneration)
		})
		return
	}
	api.updateStatus(g.PodGroup, func(st *v1alpha1.PodGroupStatus) {
		set(&st.Conditions, &st.Phase, &st.ObservedGeneration)
	})
}

// writer returns the status writer of an object, by its queue key, anew for a new object
// of the same name.
func (api *groupAPI) writer(key string, uid types.UID) *groupStatusWriter {
	w := api.writers[key]
	if w == nil || w.uid != uid {
		w = &groupStatusWriter{uid: uid}
		api.writers[key] = w
	}
	return w
}

// updateStatus applies a change to the group's desired status and writes it, after the
// write in flight if there is one.
func (api *groupAPI) updateStatus(pg *v1alpha1.PodGroup, change func(*v1alpha1.PodGroupStatus)) {
	key := pg.Namespace + "/" + pg.Name
	w := api.writer(groupEntryKey(key), pg.UID)
	next := pg.DeepCopy()
	if desired, ok := w.desired.(*v1alpha1.PodGroup); ok {
		next.Status = *desired.Status.DeepCopy()
		if next.Status.ResourceClaimStatuses == nil {
			// Written by an earlier run of phalanx, known from the informer.
			next.Status.ResourceClaimStatuses = pg.Status.ResourceClaimStatuses
		}
	}
	change(&next.Status)
	w.desired = next
	if g := api.cache.Group(key); g != nil && g.PodGroup == pg {
		// Later decisions see this status even before the informer reports it back.
		g.PodGroup = next
	}
	api.write(groupEntryKey(key), w)
}

// updateCompositeStatus is updateStatus for a CompositePodGroup.
func (api *groupAPI) updateCompositeStatus(c *v1alpha1.CompositePodGroup, change func(*v1alpha1.CompositePodGroupStatus)) {
	key := c.Namespace + "/" + c.Name
	w := api.writer(compositeEntryKey(key), c.UID)
	next := c.DeepCopy()
	if desired, ok := w.desired.(*v1alpha1.CompositePodGroup); ok {
		next.Status = *desired.Status.DeepCopy()
	}
	change(&next.Status)
	w.desired = next
	if g := api.cache.Composite(key); g != nil && g.Composite == c {
		g.Composite = next
	}
	api.write(compositeEntryKey(key), w)
}

// write writes the desired status now, or after the write in flight.
func (api *groupAPI) write(key string, w *groupStatusWriter) {
	if w.inFlight {
		w.dirty = true
		return
	}
	api.flush(key, w)
}

// flush writes the desired status off the loop, and again when it changed meanwhile.
func (api *groupAPI) flush(key string, w *groupStatusWriter) {
	obj := w.desired
	w.inFlight, w.dirty = true, false
	api.actuator.Async(func(ctx context.Context) error {
		return api.actuator.Client.UpdateStatus(ctx, obj)
	}, func(err error) {
		w.inFlight = false
		if err != nil {
			api.logger.V(2).Info("Could not update the status", "group", key, "err", err)
		}
		if w.dirty && api.writers[key] == w {
			api.flush(key, w)
		}
	})
}
