// Copied verbatim from kube-scheduler v1.37.2's
// pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go: the table of
// TestNormalizeScore (its map literal, returned by normalizeScoreCases). Only the package
// clause, the imports, the function's signature and the exported reading after it are
// phalanx's.
//
// Copyright The Kubernetes Authors; Apache License 2.0.

package dynamicresources

import (
	"maps"
	"math"
	"slices"

	fwk "k8s.io/kube-scheduler/framework"
)

type normalizeScoreCase = struct {
	scores         fwk.NodeScoreList
	expectedScores fwk.NodeScoreList
}

func normalizeScoreCases() map[string]normalizeScoreCase {
	testcases := map[string]struct {
		scores         fwk.NodeScoreList
		expectedScores fwk.NodeScoreList
	}{
		"empty": {
			scores:         fwk.NodeScoreList{},
			expectedScores: fwk.NodeScoreList{},
		},
		"single-score": {
			scores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 42,
				},
			},
			expectedScores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 100,
				},
			},
		},
		"all-same": {
			scores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 8,
				},
				{
					Name:  "node-2",
					Score: 8,
				},
			},
			expectedScores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 100,
				},
				{
					Name:  "node-2",
					Score: 100,
				},
			},
		},
		"all-same-very-large": {
			scores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: math.MaxInt32,
				},
				{
					Name:  "node-2",
					Score: math.MaxInt32,
				},
			},
			expectedScores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 100,
				},
				{
					Name:  "node-2",
					Score: 100,
				},
			},
		},
		"max-and-min-values": {
			scores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: math.MaxInt32,
				},
				{
					Name:  "node-2",
					Score: 0,
				},
			},
			expectedScores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 100,
				},
				{
					Name:  "node-2",
					Score: 0,
				},
			},
		},
		"mid-value": {
			scores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 99,
				},
				{
					Name:  "node-2",
					Score: 98,
				},
				{
					Name:  "node-3",
					Score: 97,
				},
			},
			expectedScores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 100,
				},
				{
					Name:  "node-2",
					Score: 98,
				},
				{
					Name:  "node-3",
					Score: 97,
				},
			},
		},
		"large-spread-lost-precision": {
			scores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: math.MaxInt32,
				},
				{
					Name:  "node-2",
					Score: math.MaxInt32 - 1,
				},
				{
					Name:  "node-3",
					Score: 1,
				},
				{
					Name:  "node-4",
					Score: 0,
				},
			},
			expectedScores: fwk.NodeScoreList{
				{
					Name:  "node-1",
					Score: 100,
				},
				{
					Name:  "node-2",
					Score: 99,
				},
				{
					Name:  "node-3",
					Score: 0,
				},
				{
					Name:  "node-4",
					Score: 0,
				},
			},
		},
	}
	return testcases
}

// NormalizeScoreCase is one case of TestNormalizeScore: the scores given to
// NormalizeScore and those it must leave.
type NormalizeScoreCase struct {
	Name         string
	Scores, Want fwk.NodeScoreList
}

// NormalizeScoreFrom names TestNormalizeScore in the cases' ids.
const NormalizeScoreFrom = "dynamicresources/dynamicresources_test.go TestNormalizeScore"

// NormalizeScoreCases are TestNormalizeScore's cases, in name order.
func NormalizeScoreCases() []NormalizeScoreCase {
	tcs := normalizeScoreCases()
	var out []NormalizeScoreCase
	for _, name := range slices.Sorted(maps.Keys(tcs)) {
		out = append(out, NormalizeScoreCase{Name: name, Scores: tcs[name].scores, Want: tcs[name].expectedScores})
	}
	return out
}
