package queue

import "container/heap"

// entryHeap is a binary heap of entries ordered by less; each entry knows its index so
// that it can be removed or fixed in O(log n).
type entryHeap struct {
	items []*Entry
	less  func(a, b *Entry) bool
}

func (h *entryHeap) Len() int           { return len(h.items) }
func (h *entryHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *entryHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].heapIndex = i
	h.items[j].heapIndex = j
}
func (h *entryHeap) Push(x any) {
	e := x.(*Entry)
	e.heapIndex = len(h.items)
	h.items = append(h.items, e)
}
func (h *entryHeap) Pop() any {
	n := len(h.items) - 1
	e := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	e.heapIndex = -1
	return e
}

func (h *entryHeap) push(e *Entry)   { heap.Push(h, e) }
func (h *entryHeap) pop() *Entry     { return heap.Pop(h).(*Entry) }
func (h *entryHeap) peek() *Entry    { return h.items[0] }
func (h *entryHeap) remove(e *Entry) { heap.Remove(h, e.heapIndex) }
func (h *entryHeap) fix(e *Entry)    { heap.Fix(h, e.heapIndex) }
