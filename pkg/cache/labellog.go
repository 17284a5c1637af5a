package cache

import (
	"sync/atomic"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// labelLog lists, in order, the changes to which pods of one posting count (on a node and
// not terminating), so that a reader keeping counts of them (PodTopologySpread's domain
// counts, decision 75) catches up instead of walking the posting again. A posting has a
// log only once a reader asked for one (Snapshot.LabelChangesSince): most label values
// (pod names, template hashes) are never asked about, and each log costs its posting's
// changes.
//
// Positions are base for the first change kept, base+1 for the next, and so on; the log
// drops its oldest half when full, so a reader too far behind counts afresh. Full is
// maxLabelLog changes, or fewer for a posting of few pods (labelLogLimit): catching up on
// more changes than the posting has pods costs more than walking it, and the bound keeps
// a log's memory in proportion to the pods it is about.
type labelLog struct {
	id      uint64
	base    uint64
	changes []framework.LabelChange
}

// maxLabelLog bounds a log's changes (48 bytes each, and the labels of deleted pods):
// more than a posting's reader lets pass between two uses costs less to walk again.
// minLabelLog is the bound for a posting of fewer pods.
const (
	maxLabelLog = 1 << 12
	minLabelLog = 64
)

// labelLogLimit is the most changes the log of a posting of n pods keeps.
func labelLogLimit(n int) int { return min(maxLabelLog, max(minLabelLog, n)) }

// labelLogIDs names logs uniquely across caches, so that a position of one never reads
// another's.
var labelLogIDs atomic.Uint64

func newLabelLog() *labelLog { return &labelLog{id: labelLogIDs.Add(1), base: 1} }

func (l *labelLog) now() framework.LabelPosition {
	return framework.LabelPosition{List: l.id, Seq: l.base + uint64(len(l.changes))}
}

func (l *labelLog) record(c framework.LabelChange, limit int) {
	if len(l.changes) >= limit {
		// Keep the newest half of the limit (the posting may have shrunk since the
		// last drop, and the limit with it).
		drop := len(l.changes) - limit/2
		kept := copy(l.changes, l.changes[drop:])
		clear(l.changes[kept:])
		l.changes = l.changes[:kept]
		l.base += uint64(drop)
	}
	l.changes = append(l.changes, c)
}

func (l *labelLog) since(from framework.LabelPosition) ([]framework.LabelChange, framework.LabelPosition, bool) {
	now := l.now()
	if from.List != l.id || from.Seq < l.base || from.Seq > now.Seq {
		return nil, now, false
	}
	return l.changes[from.Seq-l.base:], now, true
}

// logCounted records, in each of the pod's postings that has a log, that it starts
// (delta 1) or ceases (-1) to count, unless it is terminating (it did not count and
// does not).
func (x *labelIndex) logCounted(e *podEntry, delta int32) {
	if e.pi.Terminating {
		return
	}
	x.logChange(e, delta)
}

func (x *labelIndex) logChange(e *podEntry, delta int32) {
	for _, p := range e.postings {
		if p.log != nil {
			p.log.record(framework.LabelChange{Namespace: e.pi.Pod.Namespace, Labels: e.pi.Pod.Labels, Node: e.node, Delta: delta},
				labelLogLimit(len(p.items)))
		}
	}
}

// changesSince implements Snapshot.LabelChangesSince; the posting's log is made on the
// first ask (under logMu: cycles may read the snapshot concurrently).
func (x *labelIndex) changesSince(key, value string, from framework.LabelPosition) ([]framework.LabelChange, framework.LabelPosition, bool) {
	kp := x.keys[key]
	if kp == nil {
		return nil, framework.LabelPosition{}, false
	}
	p := kp.values[value]
	if p == nil {
		return nil, framework.LabelPosition{}, false
	}
	x.logMu.Lock()
	defer x.logMu.Unlock()
	if p.log == nil {
		p.log = newLabelLog()
	}
	return p.log.since(from)
}

// LabelChangesSince returns the changes to which pods labelled key=value count since a
// position, and the position now (false: count afresh).
func (s *NodeStore) LabelChangesSince(key, value string, from framework.LabelPosition) ([]framework.LabelChange, framework.LabelPosition, bool) {
	return s.labels.changesSince(key, value, from)
}
