package sim_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
)

// The preemptor of testdata/scenarios/dra/preemption-waits-for-device-release.yaml waits
// for its victims' claims to be released as long as releaseWaitTimeout (30 s) allows: with
// the ResourceClaim controller's delay under the bound it preempts once and runs when the
// claims are gone; with a controller slower than the bound it gives up waiting at the
// bound and preempts node-2's pods; with no delay nothing is waited for.
func TestPreemptorWaitsForDeviceRelease(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/scenarios/dra/preemption-waits-for-device-release.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, manifests := simtest.SplitScenario(t, data)
	for _, tc := range []struct {
		name        string
		delay       time.Duration
		wantVictims []string
		wantBound   float64
		wantReasons []string // events of the preemptor, in order, besides FailedScheduling
	}{
		{name: "released at once", delay: -1, wantVictims: []string{"low-1", "low-2"}, wantBound: 40, wantReasons: []string{"Scheduled"}},
		{name: "the default 4 s", wantVictims: []string{"low-1", "low-2"}, wantBound: 44, wantReasons: []string{"WaitingForRelease", "Scheduled"}},
		{name: "10 s", delay: 10 * time.Second, wantVictims: []string{"low-1", "low-2"}, wantBound: 50, wantReasons: []string{"WaitingForRelease", "Scheduled"}},
		{name: "slower than the bound: it preempts again at 70 s", delay: 60 * time.Second,
			wantVictims: []string{"low-1", "low-2", "middle", "low-3"}, wantReasons: []string{"WaitingForRelease", "ReleaseWaitTimeout", "WaitingForRelease", "Scheduled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := admission.Load([]string{"-"}, strings.NewReader(string(manifests)))
			if err != nil {
				t.Fatal(err)
			}
			_, r := simtest.Run(t, sc, sim.Options{Until: 10 * time.Minute, ClaimReleaseDelay: tc.delay})
			var victims []string
			var bound *float64
			for _, p := range r.Pods {
				if p.PreemptedBy != nil {
					victims = append(victims, p.Name)
				}
				if p.Name == "high" {
					bound = p.BoundAt
				}
			}
			if strings.Join(victims, ",") != strings.Join(tc.wantVictims, ",") {
				t.Errorf("victims %v, want %v", victims, tc.wantVictims)
			}
			if bound == nil || (tc.wantBound > 0 && *bound != tc.wantBound) {
				t.Errorf("high bound at %v, want %v", bound, tc.wantBound)
			}
			var reasons []string
			for _, e := range r.Events {
				if e.Object == "Pod/default/high" && e.Reason != "FailedScheduling" {
					reasons = append(reasons, e.Reason)
				}
			}
			if strings.Join(reasons, ",") != strings.Join(tc.wantReasons, ",") {
				t.Errorf("the preemptor's events %v, want %v", reasons, tc.wantReasons)
			}
		})
	}
}
