package whatif

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// Runs are the simulator's reports of one question: the cluster alone, and the cluster
// with the new objects.
type Runs struct {
	Baseline, WhatIf *report.Report
}

// Options are the control plane and the scheduler a question is asked of.
type Options struct {
	ControlPlane admission.ControlPlane
	Sim          sim.Options
}

// Ask runs cluster forward in virtual time without the new objects and with them, both
// arriving at time 0, with the same scheduler options, and answers for each new workload.
// Every new object must be of a kind the simulator understands: a workload it would skip
// would make the answer wrong, so that is an error (a *manifest.InputError).
//
// Ask admits cluster's objects in place, as admission.Admit does: the caller must not use
// cluster afterwards.
func Ask(ctx context.Context, cluster, news *manifest.Input, opts Options) (*Answer, *Runs, error) {
	if len(news.Warnings) > 0 {
		return nil, nil, &manifest.InputError{Where: "the new objects", Msg: "phalanx cannot tell what these would do: " + strings.Join(news.Warnings, "; ")}
	}
	// One copy for the run without the new objects; the run with them admits the cluster
	// itself. A snapshot of 65,000 nodes is gigabytes once decoded, so a third copy was
	// the difference between fitting in memory and not.
	alone, err := cluster.Copy()
	if err != nil {
		return nil, nil, err
	}
	with := cluster
	baseScenario, err := admission.Admit(opts.ControlPlane, alone)
	if err != nil {
		return nil, nil, err
	}
	scenario, err := admission.Admit(opts.ControlPlane, with, news)
	if err != nil {
		return nil, nil, err
	}
	runs := &Runs{}
	if runs.Baseline, err = run(ctx, baseScenario, opts.Sim); err != nil {
		return nil, nil, err
	}
	if runs.WhatIf, err = run(ctx, scenario, opts.Sim); err != nil {
		return nil, nil, err
	}
	q := question{scenario: scenario, news: news.Objects(), pending: pendingPods(with.Objects())}
	return q.answer(runs), runs, nil
}

func run(ctx context.Context, sc *admission.Scenario, opts sim.Options) (*report.Report, error) {
	s, err := sim.New(sc, opts)
	if err != nil {
		return nil, fmt.Errorf("the scheduler configuration: %w", err)
	}
	return s.Run(ctx)
}

// pendingPods are the cluster's pods that wait for a node, by namespace/name.
func pendingPods(objs []any) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		if p, ok := o.(*v1.Pod); ok && p.Spec.NodeName == "" {
			out[p.Namespace+"/"+p.Name] = true
		}
	}
	return out
}
