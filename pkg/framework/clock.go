package framework

import "time"

// Clock tells the time: the wall clock on a real cluster, the simulator's virtual one.
type Clock interface {
	Now() time.Time
}
