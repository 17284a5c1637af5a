package scheduler

import (
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/preemptexec"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// retries decides which pending entries a cluster event moves back to the active queue:
// those rejected by a plugin that registered the event, unless the plugin's queueing hint
// says the node cannot help, or the event is about another preemption's victim whose room
// the entry may not take.
type retries struct {
	queue       *queue.Queue
	profiles    map[string]*fwkruntime.Framework
	preemptions *preemptexec.Preemptions
	// events are the cluster events each plugin (and pseudo-plugin) registered.
	events map[string][]framework.ClusterEvent
}

// onEvent moves the entries whose rejecting plugins registered ev.
func (r *retries) onEvent(ev framework.ClusterEvent) {
	r.queue.OnEvent(ev, nil)
}

// onVictimEvent is onEvent for a change of a preemption's victim (w nil: the pod is
// nobody's victim): it does not move the preemptors that wait for their own victims and
// would not be allowed that room (Preemptions.VictimEventMayHelp).
func (r *retries) onVictimEvent(ev framework.ClusterEvent, w *preemptexec.Wait) {
	if w == nil {
		r.onEvent(ev)
		return
	}
	r.queue.OnEvent(ev, func(entry *queue.Entry) bool { return r.preemptions.VictimEventMayHelp(entry, w) })
}

// onNodeEvent is onEvent for an event about node n: a pod whose rejecting plugins have
// queueing hints is retried only if one of them says the node may help it.
func (r *retries) onNodeEvent(ev framework.ClusterEvent, n *framework.NodeInfo) {
	r.queue.OnEvent(ev, func(entry *queue.Entry) bool {
		if n == nil || entry.Pod == nil || entry.Gated() || len(entry.UnschedulablePlugins) == 0 {
			return true
		}
		fwk := r.profiles[entry.Profile]
		for name := range entry.UnschedulablePlugins {
			if !r.registered(name, ev) {
				continue
			}
			if h := fwk.QueueingHint(name); h == nil || h.QueueingHint(ev, entry.Pod, n) {
				return true
			}
		}
		return false
	})
}

// registered reports whether an event may undo a rejection by the plugin (a plugin that
// registered nothing may be helped by anything).
func (r *retries) registered(plugin string, ev framework.ClusterEvent) bool {
	regs, ok := r.events[plugin]
	if !ok {
		return true
	}
	for _, reg := range regs {
		if reg.Matches(ev) {
			return true
		}
	}
	return false
}
