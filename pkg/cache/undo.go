package cache

import "github.com/phalanx-dev/phalanx/pkg/framework"

type opKind uint8

const (
	opAdd opKind = iota
	opRemove
	// opRevert undoes a change outside the nodes (a DRA or volume assumption, a claim's
	// user count) by calling revert.
	opRevert
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
	// for opRevert
	revert func()
}

func (c *Cache) log(op undoOp) {
	if c.simulating() {
		c.undo = append(c.undo, op)
	}
}

// logRevert records how to undo a change made under a checkpoint; outside one the change
// is real and nothing is recorded.
func (c *Cache) logRevert(revert func()) {
	if c.simulating() {
		c.undo = append(c.undo, undoOp{kind: opRevert, revert: revert})
	}
}

// mark is an open checkpoint: its identity and where the undo log stood when it was taken.
type mark struct {
	id  framework.Checkpoint
	pos int
}

// simulating reports whether a checkpoint is open: mutations are then recorded, and the
// bookkeeping of real changes (group members, ghost nodes) is left alone.
func (c *Cache) simulating() bool { return len(c.marks) > 0 }

// Checkpoint starts recording mutations so that Rollback can undo them. Checkpoints nest
// like savepoints: rolling back to one also closes every checkpoint taken after it, and
// rolling back to one that is already closed does nothing, so a stray second Rollback can
// never close a checkpoint its caller still holds.
func (c *Cache) Checkpoint() framework.Checkpoint {
	c.nextMark++
	c.marks = append(c.marks, mark{id: c.nextMark, pos: len(c.undo)})
	return c.nextMark
}

// Rollback undoes every pod mutation since the checkpoint, newest first, restoring every
// field of the nodes, the label index and the node sets as they were, and closes it.
func (c *Cache) Rollback(cp framework.Checkpoint) {
	depth := -1
	for i := len(c.marks) - 1; i >= 0; i-- {
		if c.marks[i].id == cp {
			depth = i
			break
		}
	}
	if depth < 0 {
		return // already rolled back, with an enclosing checkpoint or by itself
	}
	to := c.marks[depth].pos
	c.marks = c.marks[:depth]
	for i := len(c.undo) - 1; i >= to; i-- {
		op := &c.undo[i]
		if op.kind == opRevert {
			op.revert()
			c.undo[i] = undoOp{}
			continue
		}
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
	c.undo = c.undo[:to]
}

// OpenCheckpoints is the number of checkpoints not yet rolled back; 0 between cycles.
func (c *Cache) OpenCheckpoints() int { return len(c.marks) }
