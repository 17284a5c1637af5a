package podfit

import (
	"bytes"
	"container/heap"
	"context"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

// MaxBatchAge is how long a batch's scores stay usable after the cycle that made them
// (kube-scheduler's maxBatchAge), on the scheduler's clock: virtual time in the simulator.
const MaxBatchAge = 500 * time.Millisecond

// The results of a batch attempt, kube-scheduler's labels of batch_attempts_total.
const (
	BatchNoHint      = "no_hint"
	BatchHintUsed    = "hint_used"
	BatchHintNotUsed = "hint_not_used"
)

// Why a batch's state was found unusable, kube-scheduler's labels of
// batch_cache_flushed_total.
const (
	FlushPodFailed       = "pod_failed"
	FlushPodSkipped      = "pod_skipped"
	FlushPodNominated    = "pod_nominated"
	FlushNodeMissing     = "node_missing"
	FlushEmptyList       = "empty_list"
	FlushExpired         = "expired"
	FlushPodIncompatible = "pod_incompatible"
	FlushPodNotBatchable = "pod_not_batchable"
	FlushFilterError     = "filter_error"
	FlushPreScoreError   = "prescore_error"
	FlushRescoreError    = "rescore_error"
	FlushNormalizeError  = "normalize_error"
)

// BatchRecorder counts what batching does (pkg/metrics implements it; nil: nothing).
type BatchRecorder interface {
	// Attempt counts a batch attempt's result; Flushed a state found unusable, by reason.
	Attempt(profile, result string)
	Flushed(profile, reason string)
	// Rescored counts a rescore of the last chosen node and times it; Hint times a hint's
	// search, Stored the storing of a cycle's results.
	Rescored(profile string, d time.Duration)
	Hint(profile string, hinted bool, d time.Duration)
	Stored(profile string, d time.Duration)
}

// BatchCycle is what a pod cycle tells FindNodes and SelectNode for OpportunisticBatching:
// the pod's signature (nil: it cannot be batched) and the scheduling cycle's number (one per
// popped queue entry).
type BatchCycle struct {
	Signature []byte
	Cycle     int64
}

// batch is one profile's OpportunisticBatching (kube-scheduler's OpportunisticBatch): the
// sorted scores of the nodes a pod of some signature did not take, from which the next pod
// of that signature, in the next cycle, is given the best as a hint; the hint, when it passes
// Filter, is taken without filtering or scoring any other node.
type batch struct {
	state *batchState
	last  lastCycle
	// hinted is the hint given in the current cycle ("" for none).
	hinted string
	// batched counts the pods that took their hint.
	batched int64
}

type batchState struct {
	signature []byte
	nodes     scoreHeap
	created   time.Time
}

type lastCycle struct {
	cycle     int64
	chosen    string
	succeeded bool
}

func (b *batch) empty() bool { return b.state == nil || len(b.state.nodes) == 0 }

// batch returns the profile's batch, made on first use.
func (pf Profile) batch() *batch {
	b := pf.f.batches[pf.fwk]
	if b == nil {
		if pf.f.batches == nil {
			pf.f.batches = map[*fwkruntime.Framework]*batch{}
		}
		b = &batch{}
		pf.f.batches[pf.fwk] = b
	}
	return b
}

// BatchedPods is how many pods of the profile took their hint.
func (pf Profile) BatchedPods() int64 { return pf.batch().batched }

func (pf Profile) now() time.Time {
	if pf.f.opts.Clock != nil {
		return pf.f.opts.Clock.Now()
	}
	return time.Now()
}

func (pf Profile) flushed(reason string) {
	if r := pf.f.opts.BatchRecorder; r != nil {
		r.Flushed(pf.fwk.SchedulerName(), reason)
	}
}

func (pf Profile) attempt(result string) {
	if r := pf.f.opts.BatchRecorder; r != nil {
		r.Attempt(pf.fwk.SchedulerName(), result)
	}
}

// nodeHint is kube-scheduler's GetNodeHint: when the previous cycle was this profile's, took
// a node for a pod of the same signature less than MaxBatchAge ago, and p is not nominated,
// the last chosen node is filtered again (and, when p still fits there, scored again and put
// back among the candidates), and the best remaining candidate is the hint. A state found
// unusable is counted by reason and left for the next stored result to replace.
func (pf Profile) nodeHint(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, bc *BatchCycle) string {
	b := pf.batch()
	b.hinted = ""
	start := time.Now()
	hint := pf.hintFrom(ctx, b, state, p, bc)
	if hint == "" {
		pf.attempt(BatchNoHint)
	}
	if r := pf.f.opts.BatchRecorder; r != nil {
		r.Hint(pf.fwk.SchedulerName(), hint != "", time.Since(start))
	}
	b.hinted = hint
	return hint
}

func (pf Profile) hintFrom(ctx context.Context, b *batch, state *framework.CycleState, p *framework.PodInfo, bc *BatchCycle) string {
	if b.empty() {
		return ""
	}
	switch {
	case bc.Cycle != b.last.cycle+1:
		pf.flushed(FlushPodSkipped)
		return ""
	case !b.last.succeeded:
		pf.flushed(FlushPodFailed)
		return ""
	case pf.f.opts.Nominator != nil && pf.f.opts.Nominator.NominatedNode(p.Key) != "":
		pf.flushed(FlushPodNominated)
		return ""
	case bc.Signature == nil || !bytes.Equal(bc.Signature, b.state.signature):
		pf.flushed(FlushPodIncompatible)
		return ""
	case pf.now().After(b.state.created.Add(MaxBatchAge)):
		pf.flushed(FlushExpired)
		return ""
	}
	if !pf.refreshCandidates(ctx, b, state, p) {
		return ""
	}
	return heap.Pop(&b.state.nodes).(framework.NodePluginScores).Name
}

// refreshCandidates filters the last chosen node for p again; if p still fits there, the
// node is scored again and competes with the cached candidates (kube-scheduler's
// refreshHintCandidates and rescoreHintedNode). False: the state cannot give a hint.
func (pf Profile) refreshCandidates(ctx context.Context, b *batch, state *framework.CycleState, p *framework.PodInfo) bool {
	snap := pf.f.opts.Snapshot
	last := snap.Get(b.last.chosen)
	if last == nil {
		pf.flushed(FlushNodeMissing)
		return false
	}
	st := pf.fwk.RunFilterPlugins(ctx, state, p, last)
	if !st.IsSuccess() {
		if !st.IsRejected() {
			pf.flushed(FlushFilterError)
			return false
		}
		return true
	}
	start := time.Now()
	defer func() {
		if r := pf.f.opts.BatchRecorder; r != nil {
			r.Rescored(pf.fwk.SchedulerName(), time.Since(start))
		}
	}()
	cached := b.state.nodes
	nodes := make([]*framework.NodeInfo, 0, len(cached)+1)
	scores := make([]framework.NodePluginScores, 0, len(cached)+1)
	for _, ns := range cached {
		n := snap.Get(ns.Name)
		if n == nil {
			pf.flushed(FlushNodeMissing)
			return false
		}
		nodes = append(nodes, n)
		scores = append(scores, ns)
	}
	nodes = append(nodes, last)
	rescore := state.Clone()
	if st := pf.fwk.RunPreScorePlugins(ctx, rescore, p, nodes); !st.IsSuccess() {
		pf.flushed(FlushPreScoreError)
		return false
	}
	raw, st := pf.fwk.RunRawScorePlugins(ctx, rescore, p, last)
	if !st.IsSuccess() {
		pf.flushed(FlushRescoreError)
		return false
	}
	// As kube-scheduler's: the node scored again has no tie-breaker of its own.
	scores = append(scores, framework.NodePluginScores{Name: last.Name, Raw: raw})
	if st := pf.fwk.NormalizeScores(ctx, rescore, p, nodes, scores); !st.IsSuccess() {
		pf.flushed(FlushNormalizeError)
		return false
	}
	b.state.nodes = newScoreHeap(scores)
	return true
}

// storeResults is kube-scheduler's StoreScheduleResults: the cycle is remembered as this
// profile's last; a hint taken leaves the state as it is (less the hint); otherwise the
// nodes scored and not chosen become the state for the next pod of the same signature, or
// the state is dropped when the pod cannot be batched or no other node was scored.
// unchosen is how many nodes were scored and not chosen (others holds them when the pod
// is signed).
func (pf Profile) storeResults(bc *BatchCycle, chosen string, others []framework.NodePluginScores, unchosen int) {
	b := pf.batch()
	if r := pf.f.opts.BatchRecorder; r != nil {
		defer func(start time.Time) { r.Stored(pf.fwk.SchedulerName(), time.Since(start)) }(time.Now())
	}
	b.last = lastCycle{cycle: bc.Cycle, chosen: chosen, succeeded: true}
	hinted := b.hinted
	b.hinted = ""
	if hinted == chosen {
		pf.attempt(BatchHintUsed)
		b.batched++
		return
	}
	if hinted != "" {
		pf.attempt(BatchHintNotUsed)
	}
	if bc.Signature != nil && len(others) > 0 {
		b.state = &batchState{signature: bc.Signature, nodes: newScoreHeap(others), created: pf.now()}
		return
	}
	reason := FlushPodNotBatchable
	if unchosen == 0 {
		reason = FlushEmptyList
	}
	pf.flushed(reason)
	b.state = nil
}

// TieBreak is the tie-breaker of node name's scores stored in the given cycle: between
// nodes of equal total, the batch hints the higher first. kube-scheduler breaks such ties by
// the order its parallel filtering happened to find the nodes in (or at random, with
// extenders); phalanx by a hash, so that a simulation stays deterministic.
func TieBreak(cycle int64, name string) uint64 {
	// FNV-1a over the cycle's eight bytes, little-endian, then the name.
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := range 8 {
		h = (h ^ uint64(byte(cycle>>(8*i)))) * prime
	}
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * prime
	}
	// Below 2^63, so that it is a non-negative int too (kube-scheduler's Randomizer).
	return h >> 1
}

// scoreHeap orders nodes by total, highest first, then by tie-breaker, highest first
// (kube-scheduler's nodeScoreHeap).
type scoreHeap []framework.NodePluginScores

func newScoreHeap(scores []framework.NodePluginScores) scoreHeap {
	h := scoreHeap(scores)
	heap.Init(&h)
	return h
}

func (h scoreHeap) Len() int { return len(h) }
func (h scoreHeap) Less(i, j int) bool {
	return h[i].Total > h[j].Total || (h[i].Total == h[j].Total && h[i].Randomizer > h[j].Randomizer)
}
func (h scoreHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)   { *h = append(*h, x.(framework.NodePluginScores)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
