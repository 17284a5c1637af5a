package scheduler

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// setGroupCondition writes the group's PodGroupScheduled condition (and phase) when it
// changes, off the loop. It reports whether it changed, so callers emit events only then.
func (s *Scheduler) setGroupCondition(gs *groupState, scheduled bool, reason, msg string) bool {
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
	s.writeGroupStatus(gs.info.PodGroup, phase, metav1.Condition{
		Type: v1alpha1.PodGroupScheduled, Status: status, Reason: reason, Message: msg,
	})
	return true
}

// writeGroupStatus sets a condition and the phase on a copy of the group and writes it.
func (s *Scheduler) writeGroupStatus(pg *v1alpha1.PodGroup, phase v1alpha1.PodGroupPhase, cond metav1.Condition) {
	next := pg.DeepCopy()
	cond.ObservedGeneration = pg.Generation
	cond.LastTransitionTime = metav1.NewTime(s.clock.Now())
	meta.SetStatusCondition(&next.Status.Conditions, cond)
	if phase != "" {
		next.Status.Phase = phase
	}
	next.Status.ObservedGeneration = pg.Generation
	if g := s.cache.Group(pg.Namespace + "/" + pg.Name); g != nil && g.PodGroup == pg {
		// Later writes build on this one even before the informer reports it back.
		g.PodGroup = next
	}
	s.actuator.Async(func(ctx context.Context) error {
		return s.actuator.Client.UpdateStatus(ctx, next)
	}, func(err error) {
		if err != nil {
			s.logger.V(2).Info("Could not update the PodGroup status", "podgroup", pg.Namespace+"/"+pg.Name, "err", err)
		}
	})
}
