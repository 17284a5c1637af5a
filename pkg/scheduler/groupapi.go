package scheduler

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// writers serialise each PodGroup's status writes, by namespace/name.
	writers map[string]*groupStatusWriter
	// claimsMaking are the group claims being made from templates.
	claimsMaking map[string]bool
	// claimMade is told of a group whose status now names a claim it made.
	claimMade func(*v1alpha1.PodGroup)
}

// forget drops what is kept about a group that is gone.
func (api *groupAPI) forget(key string) { delete(api.writers, key) }

// setCondition writes the group's PodGroupScheduled condition (and phase) when it changes,
// off the loop. It reports whether it changed, so callers emit events only then.
func (api *groupAPI) setCondition(gs *groupState, scheduled bool, reason, msg string) bool {
	if gs.info == nil {
		return false
	}
	status := metav1.ConditionFalse
	phase := v1alpha1.PodGroupPhasePending
	if scheduled {
		status, phase = metav1.ConditionTrue, v1alpha1.PodGroupPhaseScheduled
	}
	sig := string(status) + "\x00" + reason + "\x00" + msg
	if gs.condition == sig {
		return false
	}
	gs.condition = sig
	api.writeStatus(gs.info.PodGroup, phase, metav1.Condition{
		Type: v1alpha1.PodGroupScheduled, Status: status, Reason: reason, Message: msg,
	})
	return true
}

// groupStatusWriter serialises the status writes of one PodGroup: one write in flight at
// a time, and the latest status wins. Writes issued close together would otherwise race
// (each on its own goroutine in a real cluster), and an older one landing last, or
// re-applied after a conflict, would leave a stale condition for good.
type groupStatusWriter struct {
	uid types.UID
	// desired is the last status phalanx decided; every write builds on it.
	desired  *v1alpha1.PodGroup
	inFlight bool
	// dirty says desired changed while a write was in flight.
	dirty bool
}

// writeStatus sets a condition and the phase on the group's desired status and writes
// it, after the write in flight if there is one.
func (api *groupAPI) writeStatus(pg *v1alpha1.PodGroup, phase v1alpha1.PodGroupPhase, cond metav1.Condition) {
	cond.ObservedGeneration = pg.Generation
	cond.LastTransitionTime = metav1.NewTime(api.clock.Now())
	api.updateStatus(pg, func(st *v1alpha1.PodGroupStatus) {
		meta.SetStatusCondition(&st.Conditions, cond)
		if phase != "" {
			st.Phase = phase
		}
		st.ObservedGeneration = pg.Generation
	})
}

// updateStatus applies a change to the group's desired status and writes it, after the
// write in flight if there is one.
func (api *groupAPI) updateStatus(pg *v1alpha1.PodGroup, change func(*v1alpha1.PodGroupStatus)) {
	key := pg.Namespace + "/" + pg.Name
	w := api.writers[key]
	if w == nil || w.uid != pg.UID {
		w = &groupStatusWriter{uid: pg.UID}
		api.writers[key] = w
	}
	next := pg.DeepCopy()
	if w.desired != nil {
		next.Status = *w.desired.Status.DeepCopy()
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
			api.logger.V(2).Info("Could not update the PodGroup status", "podgroup", key, "err", err)
		}
		if w.dirty && api.writers[key] == w {
			api.flush(key, w)
		}
	})
}
