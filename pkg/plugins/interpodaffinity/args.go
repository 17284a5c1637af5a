package interpodaffinity

import (
	"encoding/json"
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// DefaultHardPodAffinityWeight is kube-scheduler's default for Args.HardPodAffinityWeight.
const DefaultHardPodAffinityWeight int32 = 1

// Args are InterPodAffinity's arguments, kube-scheduler's InterPodAffinityArgs.
type Args struct {
	// HardPodAffinityWeight is the score an incoming pod earns in a topology domain for
	// each existing pod there whose required affinity term it matches (0 to 100; 0 turns
	// it off). A pointer so that an explicit 0 is told apart from unset.
	HardPodAffinityWeight *int32 `json:"hardPodAffinityWeight,omitempty"`
	// IgnorePreferredTermsOfExistingPods skips scoring altogether for pods without
	// preferred terms of their own, instead of scoring them by the terms of existing pods.
	IgnorePreferredTermsOfExistingPods bool `json:"ignorePreferredTermsOfExistingPods"`
}

// ParseArgs decodes the arguments strictly (an unknown field is an error, so that a typo
// in a config file is not a silent default), fills defaults and validates them.
func ParseArgs(raw json.RawMessage) (Args, error) {
	var args Args
	if err := framework.DecodeArgs(raw, &args); err != nil {
		return Args{}, fmt.Errorf("InterPodAffinityArgs: %w", err)
	}
	if args.HardPodAffinityWeight == nil {
		w := DefaultHardPodAffinityWeight
		args.HardPodAffinityWeight = &w
	}
	if w := *args.HardPodAffinityWeight; w < 0 || w > 100 {
		return Args{}, fmt.Errorf("hardPodAffinityWeight: Invalid value: %d: not in valid range [0, 100]", w)
	}
	return args, nil
}
