package cache

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// labelIndex finds the pods on nodes whose labels may match a selector without scanning
// every pod: one posting list per label key=value, plus one of all pods for selectors
// that name no value. Spreading and affinity ask it on every cycle.
type labelIndex struct {
	all  posting
	keys map[string]*keyPostings
	// logMu guards the making of postings' logs, which readers ask for (labellog.go).
	logMu sync.Mutex
}

type keyPostings struct {
	values map[string]*posting
	total  int
	// dropped: no longer in the index (dropEmpty), so a pod's remembered postings that
	// name it are stale.
	dropped bool
}

// labelPostings are a pod's postings (the list of all pods first, then one per label)
// and, in the same order as its labels' postings, their keys' postings (for their totals).
type labelPostings struct {
	postings []*posting
	keys     []*keyPostings
}

// keep remembers e's postings, for the next add of the same pod (labelIndex.add).
func (lp *labelPostings) keep(e *podEntry) {
	lp.postings = append(lp.postings[:0], e.postings...)
	lp.keys = append(lp.keys[:0], e.keys...)
}

type posting struct {
	items   []postingItem
	dropped bool
	// log lists the changes to which of its pods count, once a reader asked (labellog.go).
	log *labelLog
}

// postingItem is a pod in a posting list; slot says which of the pod's postings this is,
// so that a pod moved by a removal can have its position updated.
type postingItem struct {
	e    *podEntry
	slot int32
}

func newLabelIndex() labelIndex {
	return labelIndex{keys: map[string]*keyPostings{}}
}

// add indexes a pod. known are the postings and keys an earlier add of the same PodInfo
// took (its entry's, in the same order), if any: while none of them was dropped they are
// the pod's labels' postings still, and each label is not looked up again.
func (x *labelIndex) add(e *podEntry, known *labelPostings) {
	lbls := e.pi.Pod.Labels
	// An entry reused (NodeStore.newEntry) comes with empty slices and their room.
	e.pos = slices.Grow(e.pos[:0], len(lbls)+1)
	if x.stillIndexed(known, len(lbls)) {
		e.postings = append(e.postings[:0], known.postings...)
		e.keys = append(e.keys[:0], known.keys...)
		for _, kp := range e.keys {
			kp.total++
		}
		x.append(e)
		return
	}
	e.postings = append(slices.Grow(e.postings[:0], len(lbls)+1), &x.all)
	e.keys = slices.Grow(e.keys[:0], len(lbls))
	for k, v := range lbls {
		kp := x.keys[k]
		if kp == nil {
			kp = &keyPostings{values: map[string]*posting{}}
			x.keys[k] = kp
		}
		p := kp.values[v]
		if p == nil {
			p = &posting{}
			kp.values[v] = p
		}
		kp.total++
		e.keys = append(e.keys, kp)
		e.postings = append(e.postings, p)
	}
	x.append(e)
}

// stillIndexed reports whether known holds postings and keys for n labels none of which
// was dropped from the index.
func (x *labelIndex) stillIndexed(known *labelPostings, n int) bool {
	if known == nil || len(known.postings) != n+1 || len(known.keys) != n || known.postings[0] != &x.all {
		return false
	}
	for i, kp := range known.keys {
		if kp.dropped || known.postings[i+1].dropped {
			return false
		}
	}
	return true
}

// append puts the pod at the end of each of its postings.
func (x *labelIndex) append(e *podEntry) {
	for s, p := range e.postings {
		e.pos = append(e.pos, int32(len(p.items)))
		p.items = append(p.items, postingItem{e: e, slot: int32(s)})
	}
	x.logCounted(e, 1)
}

// remove takes the pod out of its posting lists; when record is set it returns the
// positions it had, for restore.
func (x *labelIndex) remove(e *podEntry, record bool) []int32 {
	var saved []int32
	if record {
		saved = append([]int32(nil), e.pos...)
	}
	x.logCounted(e, -1)
	for s, p := range e.postings {
		i := e.pos[s]
		last := int32(len(p.items) - 1)
		if i != last {
			moved := p.items[last]
			p.items[i] = moved
			moved.e.pos[moved.slot] = i
		}
		p.items[last] = postingItem{}
		p.items = p.items[:last]
	}
	x.adjustTotals(e, -1)
	if !record {
		x.dropEmpty(e)
	}
	return saved
}

// dropEmpty forgets the posting lists and keys a real removal left empty, so that label
// values of pods long gone (job names, controller uids) do not pile up. Inside a
// simulation they stay: a rollback puts the pod back into these very lists.
func (x *labelIndex) dropEmpty(e *podEntry) {
	for k, v := range e.pi.Pod.Labels {
		kp := x.keys[k]
		if p := kp.values[v]; p != nil && len(p.items) == 0 {
			delete(kp.values, v)
			p.dropped = true
		}
		if len(kp.values) == 0 {
			delete(x.keys, k)
			kp.dropped = true
		}
	}
}

// restore undoes remove, putting the pod back at the positions it had.
func (x *labelIndex) restore(e *podEntry, saved []int32) {
	for s, p := range e.postings {
		i := saved[s]
		end := int32(len(p.items))
		p.items = append(p.items, postingItem{e: e, slot: int32(s)})
		if i != end {
			moved := p.items[i]
			p.items[end] = moved
			moved.e.pos[moved.slot] = end
			p.items[i] = postingItem{e: e, slot: int32(s)}
		}
		e.pos[s] = i
	}
	x.logCounted(e, 1)
	x.adjustTotals(e, 1)
}

// undoAdd undoes add: the pod is the last item of each of its postings.
func (x *labelIndex) undoAdd(e *podEntry) {
	for _, p := range e.postings {
		p.items[len(p.items)-1] = postingItem{}
		p.items = p.items[:len(p.items)-1]
	}
	x.logCounted(e, -1)
	x.adjustTotals(e, -1)
}

// adjustTotals counts the pod in or out of its label keys' totals. A key stays in the
// index while a pod has it (dropEmpty only drops keys left without pods), so the entry's
// pointers to them hold.
func (x *labelIndex) adjustTotals(e *podEntry, d int) {
	for _, kp := range e.keys {
		kp.total += d
	}
}

// forEach calls fn for each pod in the smallest set of candidates that the selector's
// equality, In or Exists requirements allow. matched tells fn that the candidate is known
// to match: the selector is that one requirement, whose postings hold exactly the pods it
// matches. Otherwise the caller still checks the whole selector. (Spreading's selectors
// are mostly one label: the check, a map lookup per pod, was half of the walk.)
func (x *labelIndex) forEach(sel labels.Selector, fn func(e *podEntry, matched bool) bool) {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return
	}
	var best []*posting
	bestCount := len(x.all.items) + 1
	for _, r := range reqs {
		kp := x.keys[r.Key()]
		var lists []*posting
		count := 0
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			values := r.ValuesUnsorted()
			for i, v := range values {
				if kp == nil {
					break
				}
				// A value listed twice ("app In (a, a)", which the API server accepts)
				// names one posting: visiting it twice would count its pods twice.
				if slices.Contains(values[:i], v) {
					continue
				}
				if p := kp.values[v]; p != nil && len(p.items) > 0 {
					lists = append(lists, p)
					count += len(p.items)
				}
			}
		case selection.Exists:
			if kp != nil {
				count = kp.total
				for _, p := range kp.values {
					if len(p.items) > 0 {
						lists = append(lists, p)
					}
				}
			}
		default:
			continue
		}
		if count < bestCount {
			best, bestCount = lists, count
		}
	}
	matched := len(reqs) == 1 && bestCount <= len(x.all.items)
	if bestCount > len(x.all.items) {
		best = []*posting{&x.all}
	}
	for _, p := range best {
		for _, it := range p.items {
			if !fn(it.e, matched) {
				return
			}
		}
	}
}
