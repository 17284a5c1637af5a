// Package noderesources holds the plugins that look at node resources: NodeResourcesFit
// (filter, and scoring by LeastAllocated, MostAllocated or RequestedToCapacityRatio) and
// NodeResourcesBalancedAllocation.
package noderesources

import (
	"encoding/json"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// ScoringStrategyType names how NodeResourcesFit scores.
type ScoringStrategyType string

// Strategies, with kube-scheduler's names and meanings.
const (
	LeastAllocated           ScoringStrategyType = "LeastAllocated"
	MostAllocated            ScoringStrategyType = "MostAllocated"
	RequestedToCapacityRatio ScoringStrategyType = "RequestedToCapacityRatio"
)

// ResourceSpec is a resource and its weight in scoring.
type ResourceSpec struct {
	Name   v1.ResourceName `json:"name"`
	Weight int64           `json:"weight,omitempty"`
}

// UtilizationShapePoint is a point of the RequestedToCapacityRatio function: utilization
// in percent (0-100) to score (0-10).
type UtilizationShapePoint struct {
	Utilization int32 `json:"utilization"`
	Score       int32 `json:"score"`
}

// ScoringStrategy configures scoring.
type ScoringStrategy struct {
	Type      ScoringStrategyType `json:"type,omitempty"`
	Resources []ResourceSpec      `json:"resources,omitempty"`
	// RequestedToCapacityRatio holds the shape for that strategy.
	RequestedToCapacityRatio *struct {
		Shape []UtilizationShapePoint `json:"shape"`
	} `json:"requestedToCapacityRatio,omitempty"`
}

// FitArgs are NodeResourcesFit's arguments.
type FitArgs struct {
	// IgnoredResources are resources the filter does not check.
	IgnoredResources []string `json:"ignoredResources,omitempty"`
	// IgnoredResourceGroups are prefixes (before the "/") of resources not checked.
	IgnoredResourceGroups []string         `json:"ignoredResourceGroups,omitempty"`
	ScoringStrategy       *ScoringStrategy `json:"scoringStrategy,omitempty"`
}

// BalancedAllocationArgs are NodeResourcesBalancedAllocation's arguments.
type BalancedAllocationArgs struct {
	Resources []ResourceSpec `json:"resources,omitempty"`
}

var defaultResources = []ResourceSpec{{Name: v1.ResourceCPU, Weight: 1}, {Name: v1.ResourceMemory, Weight: 1}}

// decodeStrict decodes plugin arguments, rejecting unknown fields so that a typo in a
// config file is an error, not a silent default.
func decodeStrict(raw json.RawMessage, into any) error {
	return framework.DecodeArgs(raw, into)
}

func parseFitArgs(raw json.RawMessage) (*FitArgs, error) {
	args := &FitArgs{}
	if err := decodeStrict(raw, args); err != nil {
		return nil, err
	}
	if args.ScoringStrategy == nil {
		args.ScoringStrategy = &ScoringStrategy{}
	}
	s := args.ScoringStrategy
	if s.Type == "" {
		s.Type = LeastAllocated
	}
	if len(s.Resources) == 0 {
		s.Resources = defaultResources
	}
	for i := range s.Resources {
		if s.Resources[i].Weight == 0 {
			s.Resources[i].Weight = 1
		}
		if s.Resources[i].Weight < 0 || s.Resources[i].Weight > 100 {
			return nil, fmt.Errorf("scoringStrategy.resources[%d].weight: must be between 1 and 100", i)
		}
	}
	switch s.Type {
	case LeastAllocated, MostAllocated:
		if s.RequestedToCapacityRatio != nil {
			return nil, fmt.Errorf("scoringStrategy.requestedToCapacityRatio: must be unset when type is %s", s.Type)
		}
	case RequestedToCapacityRatio:
		if s.RequestedToCapacityRatio == nil || len(s.RequestedToCapacityRatio.Shape) == 0 {
			return nil, fmt.Errorf("scoringStrategy.requestedToCapacityRatio.shape: required for %s", s.Type)
		}
		shape := s.RequestedToCapacityRatio.Shape
		for i, p := range shape {
			if p.Utilization < 0 || p.Utilization > 100 || p.Score < 0 || p.Score > 10 {
				return nil, fmt.Errorf("scoringStrategy.requestedToCapacityRatio.shape[%d]: utilization must be 0-100 and score 0-10", i)
			}
			if i > 0 && p.Utilization <= shape[i-1].Utilization {
				return nil, fmt.Errorf("scoringStrategy.requestedToCapacityRatio.shape[%d]: utilization must increase", i)
			}
		}
	default:
		return nil, fmt.Errorf("scoringStrategy.type: unsupported value %q (LeastAllocated, MostAllocated, RequestedToCapacityRatio)", s.Type)
	}
	for i, r := range args.IgnoredResources {
		if errs := validation.IsQualifiedName(r); len(errs) > 0 {
			return nil, fmt.Errorf("ignoredResources[%d]: %q: %s", i, r, strings.Join(errs, "; "))
		}
	}
	for i, g := range args.IgnoredResourceGroups {
		if strings.Contains(g, "/") {
			return nil, fmt.Errorf("ignoredResourceGroups[%d]: %q must not contain \"/\"", i, g)
		}
		if errs := validation.IsQualifiedName(g); len(errs) > 0 {
			return nil, fmt.Errorf("ignoredResourceGroups[%d]: %q: %s", i, g, strings.Join(errs, "; "))
		}
	}
	return args, nil
}
