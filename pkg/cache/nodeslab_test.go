package cache

import (
	"fmt"
	"testing"
	"unsafe"
)

// TestNodeInfosLaidOutInIndexOrder: the nodes a scan visits one after another (consecutive
// indices) are adjacent in memory, each starting a cache line, so that a scan reads pages
// of nodes in order (decision 58).
func TestNodeInfosLaidOutInIndexOrder(t *testing.T) {
	if size := unsafe.Sizeof(slabNode{}); size%64 != 0 {
		t.Fatalf("slabNode is %d bytes, not whole cache lines", size)
	}
	c := New()
	const count = 3*slabNodes + 5
	for i := range count {
		c.Nodes().AddNode(node(fmt.Sprintf("n%d", i)))
	}
	nodes := c.NodeInfos()
	adjacent := 0
	for i, n := range nodes {
		if addr := uintptr(unsafe.Pointer(n)); addr%64 != 0 {
			t.Errorf("node %d at %#x: not at the start of a cache line", i, addr)
		}
		if i > 0 && uintptr(unsafe.Pointer(n))-uintptr(unsafe.Pointer(nodes[i-1])) == unsafe.Sizeof(slabNode{}) {
			adjacent++
		}
	}
	// Only where one slab ends and the next begins may two neighbours lie apart.
	if want := count - 1 - count/slabNodes; adjacent < want {
		t.Errorf("%d of %d neighbouring nodes adjacent in memory, want at least %d", adjacent, count-1, want)
	}
	// A node removed and added again is a new node, at the end of the order and of the slab.
	c.Nodes().RemoveNode("n3")
	c.Nodes().AddNode(node("n3"))
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
}
