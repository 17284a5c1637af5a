package dynamicresources

import (
	"sync"
	"sync/atomic"
)

// nodeAllocations are what Filter found on each node in one cycle of a pod, by
// NodeInfo.Index. A pod with claims may be filtered on tens of thousands of nodes of a
// large cluster, by concurrent Filter calls: each stores its node's without a lock and
// without hashing the node's name (decision 66). The entries come in chunks made on first
// use, so a cycle keeps room only for the parts of the cluster where devices fit.
//
// Nodes are added and removed between cycles, so a node keeps its index for the life of
// a cycle's state; an entry names its node all the same, and a lookup that finds another
// node's entry at the index finds nothing.
type nodeAllocations struct {
	// chunks cover the indexes of the nodes the snapshot had when the cycle began.
	chunks []atomic.Pointer[allocationChunk]

	// others are the entries of nodes beyond chunks (never expected: see above).
	mu     sync.Mutex
	others map[string]*nodeAllocation
}

// chunkSize is how many nodes' entries a chunk holds: 512 bytes.
const chunkSize = 64

type allocationChunk [chunkSize]atomic.Pointer[nodeAllocation]

// newNodeAllocations makes room for a snapshot of the given number of nodes.
func newNodeAllocations(nodes int) *nodeAllocations {
	return &nodeAllocations{chunks: make([]atomic.Pointer[allocationChunk], (nodes+chunkSize-1)/chunkSize)}
}

// store records what Filter found on the node of the index (na.node is its name; -1 for
// a node the snapshot does not have), replacing an earlier entry (a preemption's dry run
// filters the node again).
func (t *nodeAllocations) store(index int, na *nodeAllocation) {
	c := index / chunkSize
	if index < 0 || c >= len(t.chunks) {
		t.mu.Lock()
		if t.others == nil {
			t.others = map[string]*nodeAllocation{}
		}
		t.others[na.node] = na
		t.mu.Unlock()
		return
	}
	chunk := t.chunks[c].Load()
	if chunk == nil {
		if fresh := new(allocationChunk); t.chunks[c].CompareAndSwap(nil, fresh) {
			chunk = fresh
		} else {
			chunk = t.chunks[c].Load() // another Filter made it first
		}
	}
	chunk[index%chunkSize].Store(na)
}

// load returns what Filter found on the named node, at its index (-1 for a node the
// snapshot does not have), or nil.
func (t *nodeAllocations) load(index int, name string) *nodeAllocation {
	if index >= 0 && index/chunkSize < len(t.chunks) {
		if chunk := t.chunks[index/chunkSize].Load(); chunk != nil {
			if na := chunk[index%chunkSize].Load(); na != nil && na.node == name {
				return na
			}
		}
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.others[name]
}
