package sim

import (
	"container/heap"
	"time"
)

// timedQueue orders timed work by time, then by the order it was planned.
type timedQueue struct {
	items timedItems
	seq   int
}

type timedItem struct {
	t   time.Time
	seq int
	fn  func()
}

type timedItems []timedItem

func (h timedItems) Len() int { return len(h) }
func (h timedItems) Less(i, j int) bool {
	if !h[i].t.Equal(h[j].t) {
		return h[i].t.Before(h[j].t)
	}
	return h[i].seq < h[j].seq
}
func (h timedItems) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timedItems) Push(x any)   { *h = append(*h, x.(timedItem)) }
func (h *timedItems) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

func (q *timedQueue) push(t time.Time, fn func()) {
	q.seq++
	heap.Push(&q.items, timedItem{t: t, seq: q.seq, fn: fn})
}

func (q *timedQueue) due(now time.Time) bool {
	return len(q.items) > 0 && !q.items[0].t.After(now)
}

func (q *timedQueue) next() (time.Time, bool) {
	if len(q.items) == 0 {
		return time.Time{}, false
	}
	return q.items[0].t, true
}

func (q *timedQueue) pop() func() { return heap.Pop(&q.items).(timedItem).fn }
