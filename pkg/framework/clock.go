package framework

import "time"

// Clock tells the time: the wall clock on a real cluster, the simulator's virtual one.
type Clock interface {
	Now() time.Time
}

// WallClock is the wall clock.
type WallClock struct{}

// Now implements Clock.
func (WallClock) Now() time.Time { return time.Now() }
