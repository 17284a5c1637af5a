// Package queue is the scheduling queue: pending pods (and, later, pod groups as single
// entries) ordered by priority then arrival, with exponential backoff after failed
// attempts, a pool of unschedulable entries that cluster events move back, and PreEnqueue
// gates that keep an entry out until it may be tried.
package queue

import (
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Where an entry currently is.
type location uint8

const (
	nowhere location = iota
	inActive
	inBackoff
	inUnschedulable
	inGated
	inFlight
)

func (l location) String() string {
	return [...]string{"none", "active", "backoff", "unschedulable", "gated", "in-flight"}[l]
}

// Entry is one schedulable unit in the queue: a pod, or a pod group.
type Entry struct {
	// QueuedUnit holds the key, priority and timestamp the queue orders by. Timestamp is
	// when the entry last entered the queue, so a pod that failed goes behind its peers.
	framework.QueuedUnit
	// Pod is set for a pod entry.
	Pod *framework.PodInfo
	// Group is set for a pod group entry (the scheduler's own type).
	Group any
	// Profile is the scheduler name of the profile that schedules this entry.
	Profile string

	// Added is when the entry first entered the queue (for a group: its first member).
	Added time.Time
	// InitialAttempt is when the entry was first tried (zero before that).
	InitialAttempt time.Time
	// Attempts counts scheduling attempts.
	Attempts int
	// UnschedulablePlugins are the plugins that rejected the last attempt; only events they
	// registered move the entry back.
	UnschedulablePlugins sets.Set[string]
	// GatedBy and GatedMessage say which PreEnqueue plugin holds the entry, and why.
	GatedBy      string
	GatedMessage string

	// seq orders entries that are otherwise equal by when they entered the queue.
	seq           uint64
	lastFailure   time.Time
	backoffExpiry time.Time
	where         location
	heapIndex     int
}

// Gated reports whether a PreEnqueue plugin holds the entry.
func (e *Entry) Gated() bool { return e.where == inGated }

// Location names where the entry is, for logs and tests.
func (e *Entry) Location() string { return e.where.String() }
