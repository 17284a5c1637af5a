package cache

import (
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// undoLog records what every store changes under a checkpoint, in one order, so that
// Rollback undoes it newest first across stores: a pod's claims and volume claims are
// counted after the pod is placed, so they are released before the pod leaves its node.
// Separate logs per store would lose that order. Pod moves, the hot path of simulations,
// are recorded as values the NodeStore undoes without a closure; the other stores' rarer
// changes as closures (logRevert).
type undoLog struct {
	ops      []undoOp
	marks    []mark
	nextMark framework.Checkpoint
}

// undoOp is one recorded change: a pod move, or (revert set) any other store's change.
type undoOp struct {
	move   podMove
	revert func()
}

// mark is an open checkpoint: its identity and where the undo log stood when it was taken.
type mark struct {
	id  framework.Checkpoint
	pos int
}

// simulating reports whether a checkpoint is open: changes are then recorded, and the
// bookkeeping of real changes (group members, ghost nodes) is left alone.
func (l *undoLog) simulating() bool { return len(l.marks) > 0 }

// logMove records a pod move made under a checkpoint.
func (l *undoLog) logMove(m podMove) {
	if l.simulating() {
		l.ops = append(l.ops, undoOp{move: m})
	}
}

// logRevert records how to undo a change made under a checkpoint; outside one the change
// is real and nothing is recorded.
func (l *undoLog) logRevert(revert func()) {
	if l.simulating() {
		l.ops = append(l.ops, undoOp{revert: revert})
	}
}

// checkpoint opens a checkpoint. Checkpoints nest like savepoints: rolling back to one
// also closes every checkpoint taken after it, and rolling back to one that is already
// closed does nothing, so a stray second Rollback can never close a checkpoint its caller
// still holds.
func (l *undoLog) checkpoint() framework.Checkpoint {
	l.nextMark++
	l.marks = append(l.marks, mark{id: l.nextMark, pos: len(l.ops)})
	return l.nextMark
}

// rollback undoes every change recorded since the checkpoint, newest first, and closes it;
// pods undoes the pod moves.
func (l *undoLog) rollback(cp framework.Checkpoint, pods *NodeStore) {
	depth := -1
	for i := len(l.marks) - 1; i >= 0; i-- {
		if l.marks[i].id == cp {
			depth = i
			break
		}
	}
	if depth < 0 {
		return // already rolled back, with an enclosing checkpoint or by itself
	}
	to := l.marks[depth].pos
	l.marks = l.marks[:depth]
	for i := len(l.ops) - 1; i >= to; i-- {
		op := &l.ops[i]
		if op.revert != nil {
			op.revert()
		} else {
			pods.undoMove(&op.move)
		}
		l.ops[i] = undoOp{}
	}
	l.ops = l.ops[:to]
}

// open is the number of checkpoints not yet rolled back.
func (l *undoLog) open() int { return len(l.marks) }

// verify: nothing is recorded outside a simulation.
func (l *undoLog) verify() error {
	if !l.simulating() && len(l.ops) > 0 {
		return fmt.Errorf("%d undo records outside a simulation", len(l.ops))
	}
	return nil
}
