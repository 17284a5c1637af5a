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
// Ask admits cluster's objects in place, as admission.Admit does, and the run with the
// new objects takes its pods over (sim.Options.TakeOver): the caller must not use cluster
// afterwards.
func Ask(ctx context.Context, cluster, news *manifest.Input, opts Options) (*Answer, *Runs, error) {
	if len(news.Warnings) > 0 {
		return nil, nil, &manifest.InputError{Where: "the new objects", Msg: "phalanx cannot tell what these would do: " + strings.Join(news.Warnings, "; ")}
	}
	// The cluster's nodes and pods, nearly all of a snapshot (65,000 nodes and 260,000
	// pods are gigabytes once decoded), are admitted once, for both runs, and shared by
	// them; its other objects are few, and each run admits its own copy of them, so that
	// each has its own controllers' models and groups (decision 53).
	bulk, rest := cluster.Split(nodeOrPod)
	restAgain, err := rest.Copy()
	if err != nil {
		return nil, nil, err
	}
	baseScenario, err := admission.Admit(opts.ControlPlane, bulk, rest)
	if err != nil {
		return nil, nil, err
	}
	// Read before the runs: the last one takes the pods over.
	pending := pendingPods(baseScenario.Pods)
	scenario, err := admission.AdmitOver(opts.ControlPlane, baseScenario, restAgain, news)
	if err != nil {
		return nil, nil, err
	}
	runs := &Runs{}
	// The baseline copies each pod it creates and leaves the shared ones as they are; the
	// run with the new objects, the last to read them, then takes them over.
	if runs.Baseline, err = run(ctx, baseScenario, opts.Sim); err != nil {
		return nil, nil, err
	}
	last := opts.Sim
	last.TakeOver = true
	if runs.WhatIf, err = run(ctx, scenario, last); err != nil {
		return nil, nil, err
	}
	q := question{scenario: scenario, news: news.Objects(), pending: pending}
	return q.answer(runs), runs, nil
}

// nodeOrPod is true of the objects of a cluster admitted once for both runs.
func nodeOrPod(o any) bool {
	switch o.(type) {
	case *v1.Node, *v1.Pod:
		return true
	}
	return false
}

func run(ctx context.Context, sc *admission.Scenario, opts sim.Options) (*report.Report, error) {
	s, err := sim.New(sc, opts)
	if err != nil {
		return nil, fmt.Errorf("the scheduler configuration: %w", err)
	}
	return s.Run(ctx)
}

// pendingPods are the cluster's pods that wait for a node, by namespace/name.
func pendingPods(pods []*v1.Pod) map[string]bool {
	out := map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			out[p.Namespace+"/"+p.Name] = true
		}
	}
	return out
}
