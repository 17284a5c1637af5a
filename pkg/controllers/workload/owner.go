package workload

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// owner models the controller of pods whose workload is not in the input (a snapshot
// holds pods, not their Jobs or ReplicaSets): knowing only its kind, it replaces each pod
// the way that controller would: a ReplicaSet's at once when its deletion starts, a Job's
// after the Job controller's backoff, a StatefulSet's under the same name once it is gone,
// a DaemonSet's once it is gone (it keeps the node affinity that pins it to its node).
type owner struct {
	ref   Ref
	names names
	// failures counts a Job's failed pods since its last success, for its backoff; waiting
	// are the replacements made when the backoff of generation timer ends.
	failures int32
	waiting  []*v1.Pod
	timer    int
	stopped  bool
}

// replacedKinds are the controllers whose pods owner replaces.
var replacedKinds = map[string]bool{"ReplicaSet": true, "Job": true, "StatefulSet": true, "DaemonSet": true}

// ForOwner is the model of the controller a pod names in its controller owner reference
// when the input does not hold that controller; nil when the pod has none, or one whose
// replacements are not modelled (custom controllers).
func ForOwner(p *v1.Pod) Controller {
	ref := metav1.GetControllerOf(p)
	if ref == nil || !replacedKinds[ref.Kind] {
		return nil
	}
	return &owner{ref: Ref{Kind: ref.Kind, Namespace: p.Namespace, Name: ref.Name},
		names: names{seed: ref.Kind + "/" + p.Namespace + "/" + ref.Name}}
}

func (c *owner) Made() []runtime.Object { return nil }
func (c *owner) Workload() Ref          { return c.ref }
func (c *owner) Templates() []Template  { return nil }
func (c *owner) Start() []Action        { return nil }
func (c *owner) Stop()                  { c.stopped = true }

func (c *owner) Observe(p *v1.Pod, ch Change) []Action {
	if c.stopped || ch == Running {
		return nil
	}
	replaceOnGone := c.ref.Kind == "StatefulSet" || c.ref.Kind == "DaemonSet"
	switch {
	case ch == Succeeded && c.ref.Kind == "Job":
		c.failures = 0 // a success ends the backoff: the replacements waiting are made
		c.timer++
		acts := make([]Action, 0, len(c.waiting))
		for _, w := range c.waiting {
			acts = append(acts, Action{Object: w})
		}
		c.waiting = nil
		return acts
	case ch == Terminating && replaceOnGone, ch == Gone && !replaceOnGone && p.DeletionTimestamp != nil:
		return nil // replaced at the other moment of its end
	}
	r := replacement(p)
	switch c.ref.Kind {
	case "StatefulSet":
		r.Name = p.Name
	case "Job":
		// One backoff for the Job, from its failures since the last success and counted
		// from the latest: every replacement waiting is made when it ends.
		c.failures++
		prefix := c.ref.Name + "-"
		if idx, ok := p.Labels[annotationCompletionIndex]; ok {
			prefix = fmt.Sprintf("%s-%s-", c.ref.Name, idx)
		}
		r.Name = c.names.next(prefix)
		c.waiting = append(c.waiting, r)
		c.timer++
		gen := c.timer
		return []Action{{After: backoffDelay(c.failures), Then: func() []Action {
			if gen != c.timer || c.stopped {
				return nil
			}
			acts := make([]Action, 0, len(c.waiting))
			for _, w := range c.waiting {
				acts = append(acts, Action{Object: w})
			}
			c.waiting = nil
			return acts
		}}}
	default:
		r.Name = c.names.next(c.ref.Name + "-")
	}
	return []Action{{Object: r}}
}

// replacement is a new pod with the spec, labels, annotations and owners of one that ends.
func replacement(p *v1.Pod) *v1.Pod {
	m := p.ObjectMeta.DeepCopy()
	r := &v1.Pod{TypeMeta: p.TypeMeta, Spec: *p.Spec.DeepCopy(), ObjectMeta: metav1.ObjectMeta{
		Namespace: m.Namespace, Labels: m.Labels, Annotations: m.Annotations, OwnerReferences: m.OwnerReferences, Finalizers: m.Finalizers}}
	r.Spec.NodeName = ""
	return r
}
