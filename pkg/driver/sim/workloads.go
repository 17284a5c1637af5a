package sim

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/controllers/workload"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// The workload controllers' models (pkg/controllers/workload, made at admission) are hosted
// here: the simulator creates what a controller asks for when it asks, and tells it what
// happens to its pods. Pods whose controller is not in the input (a snapshot's) are
// replaced as that kind of controller would replace them (timeline.go gives them a model).

// tell passes a change of a pod to its controller; what the controller makes in reaction
// to a pod's end replaces that pod.
func (s *Simulator) tell(rec *podRecord, ch workload.Change) {
	if rec.ctrl == nil {
		return
	}
	var cause *podRecord
	if ch == workload.Terminating || ch == workload.Gone {
		cause = rec
		if !rec.replaced && !rec.awaitsReplacement {
			rec.awaitsReplacement = true
			s.unreplaced[rec.ctrl] = append(s.unreplaced[rec.ctrl], rec)
		}
	}
	s.perform(rec.ctrl, rec.ctrl.Observe(rec.pod, ch), cause)
}

// perform creates what a controller asks for, each at its time; cause is the ended pod
// whose change it reacts to (nil for none).
func (s *Simulator) perform(c workload.Controller, acts []workload.Action, cause *podRecord) {
	for _, a := range acts {
		if a.Then != nil {
			then := a.Then
			s.at(s.now.Add(a.After), func() { s.perform(c, then(), cause) })
			continue
		}
		switch o := a.Object.(type) {
		case *v1.Pod:
			s.at(s.now.Add(a.After), func() { s.createMadePod(c, o, cause) })
		case *v1.PersistentVolumeClaim:
			s.at(s.now.Add(a.After), func() {
				if s.objs.PersistentVolumeClaim(o.Namespace+"/"+o.Name) == nil {
					s.objs.volumes.CreateClaim(o)
				}
			})
		}
	}
}

// replacedBy says which ended pod a pod the controller makes in reaction to cause's end
// replaces: cause unless a pod made earlier replaces it, else the controller's earliest
// ended pod not yet replaced. One reaction may make several pods (a Job's backoff ends
// once for all its failures, and its timer is the latest failure's): each replaces a
// pod of its own.
func (s *Simulator) replacedBy(c workload.Controller, cause *podRecord) string {
	if cause == nil {
		return ""
	}
	pick := cause
	if cause.replaced {
		if q := s.unreplaced[c]; len(q) > 0 {
			pick = q[0]
		}
	}
	if !pick.replaced {
		pick.replaced = true
		s.unreplaced[c] = slices.DeleteFunc(s.unreplaced[c], func(r *podRecord) bool { return r == pick })
	}
	return pick.pod.Name
}

// createMadePod creates a pod a controller made, as the API server would: a name no live
// pod has (else the creation fails, as it would), a UID of its own.
func (s *Simulator) createMadePod(c workload.Controller, p *v1.Pod, cause *podRecord) {
	k := key(p)
	old := s.pods[k]
	if old != nil && !old.gone {
		s.events = append(s.events, report.Event{Time: s.seconds(s.now), Object: c.Workload().Kind + "/" + c.Workload().Namespace + "/" + c.Workload().Name,
			Type: v1.EventTypeWarning, Reason: "FailedCreate", Message: fmt.Sprintf("pods %q already exists", p.Name)})
		return
	}
	delete(p.Annotations, admission.AnnotationCreateAt)
	delete(p.Annotations, admission.AnnotationDeleteAt)
	p.UID = types.UID("sim-" + p.Namespace + "-" + p.Name)
	if old != nil { // a StatefulSet's pod made again
		p.UID = types.UID(fmt.Sprintf("%s-%d", p.UID, len(s.podOrder)))
	}
	t, _ := admission.ParseTiming(&p.ObjectMeta)
	rec := &podRecord{pod: p, timing: t, phase: report.PhasePending, ctrl: c, replaces: s.replacedBy(c, cause)}
	s.pods[k] = rec
	s.podOrder = append(s.podOrder, rec)
	s.createPod(rec)
}
