package cache

import "github.com/phalanx-dev/phalanx/pkg/framework"

type opKind uint8

const (
	opAdd opKind = iota
	opRemove
)

// undoOp records one pod mutation and what its exact inverse needs.
type undoOp struct {
	kind       opKind
	entry      *podEntry
	generation int64
	// for opRemove: where the pod sat, so it goes back to the same positions
	slot                 framework.PodSlot
	labelPos             []int32
	antiPos, affinityPos int32
}

func (c *Cache) log(op undoOp) {
	if c.open > 0 {
		c.undo = append(c.undo, op)
	}
}

// Checkpoint starts recording mutations so that Rollback can undo them. Checkpoints nest;
// each must be matched by a Rollback.
func (c *Cache) Checkpoint() framework.Checkpoint {
	c.open++
	return framework.Checkpoint(len(c.undo))
}

// Rollback undoes every pod mutation since the checkpoint, newest first, restoring every
// field of the nodes, the label index and the node sets as they were.
func (c *Cache) Rollback(cp framework.Checkpoint) {
	if c.open == 0 {
		return
	}
	for i := len(c.undo) - 1; i >= int(cp); i-- {
		op := &c.undo[i]
		e := op.entry
		n := e.node
		switch op.kind {
		case opAdd:
			if len(e.pi.RequiredAntiAffinity) > 0 && len(n.PodsWithRequiredAntiAffinity) == 1 && n.Node() != nil {
				c.antiNodes.pop(n)
			}
			if e.pi.HasAffinityTerms() && len(n.PodsWithAffinity) == 1 && n.Node() != nil {
				c.affinityNodes.pop(n)
			}
			c.labels.undoAdd(e)
			n.UndoAdd(e.pi)
			delete(c.entries, e.pi)
			if c.pods[e.pi.Key] == e.pi {
				delete(c.pods, e.pi.Key)
			}
		case opRemove:
			n.RestorePod(e.pi, op.slot)
			c.labels.restore(e, op.labelPos)
			if op.antiPos >= 0 {
				c.antiNodes.restore(n, op.antiPos)
			}
			if op.affinityPos >= 0 {
				c.affinityNodes.restore(n, op.affinityPos)
			}
			c.entries[e.pi] = e
			c.pods[e.pi.Key] = e.pi
		}
		n.Generation = op.generation
		c.undo[i] = undoOp{}
	}
	c.undo = c.undo[:cp]
	c.open--
}
