package workload

import (
	"fmt"
	"hash/fnv"

	batchv1 "k8s.io/api/batch/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder"
	"k8s.io/utils/dump"
)

// Kubernetes 1.37's Job controller, with its WorkloadWithJob gate, makes a Workload and a
// PodGroup (scheduling.k8s.io/v1beta1) for every Job that no other controller owns and
// whose pod template names no scheduling group, before its pods, and puts the pods in the
// group: basic scheduling by default, a gang when the Job's spec.scheduling says so (its
// minCount defaults to the parallelism). It compiles the Workload with component-helpers'
// workloadbuilder, as here.

// managesGroup reports whether the Job controller makes a Workload and PodGroup for j.
func managesGroup(j *batchv1.Job) bool {
	return j.Spec.Template.Spec.SchedulingGroup == nil && metav1.GetControllerOf(j) == nil
}

// jobGroup is the Workload and PodGroup the Job controller makes for j.
func jobGroup(j *batchv1.Job, owner metav1.OwnerReference) (*schedulingv1beta1.Workload, *schedulingv1beta1.PodGroup, error) {
	templateName := fmt.Sprintf("%s-pgt-%d", j.Name, 0)
	item := &workloadbuilder.WorkloadItem{
		Name: templateName,
		DefaultConfig: &workloadbuilder.SchedulingConfig{
			Policy:            &workloadbuilder.SchedulingPolicy{Basic: &workloadbuilder.BasicSchedulingPolicy{}},
			PriorityClassName: j.Spec.Template.Spec.PriorityClassName,
		},
		Callbacks: []workloadbuilder.SchedulingConfigFunc{func(cfg *workloadbuilder.SchedulingConfig) {
			if cfg != nil && cfg.Policy != nil && cfg.Policy.Gang != nil && cfg.Policy.Gang.MinCount == nil {
				n := max(1, ptrOr(j.Spec.Parallelism, 1))
				cfg.Policy.Gang.MinCount = &n
			}
		}},
	}
	if s := j.Spec.Scheduling; s != nil {
		item.Input = workloadbuilder.WorkloadInput{
			Policy:         workloadbuilder.PolicyInput{PodGroupData: s.SchedulingPolicy, PathElements: []string{"schedulingPolicy"}},
			Constraints:    workloadbuilder.ConstraintsInput{PodGroupData: s.SchedulingConstraints, PathElements: []string{"schedulingConstraints"}},
			DisruptionMode: workloadbuilder.DisruptionModeInput{PodGroupData: s.DisruptionMode, PathElements: []string{"disruptionMode"}},
			ResourceClaims: workloadbuilder.ResourceClaimsInput{PodGroupData: s.ResourceClaims, PathElements: []string{"resourceClaims"}},
		}
	}
	b := workloadbuilder.NewBuilder(item, workloadbuilder.BuildOptions{Name: workloadName(j), Namespace: j.Namespace, Owner: &owner})
	wl, err := b.BuildWorkload()
	if err != nil {
		return nil, nil, err
	}
	pg, err := b.NewPodGroup(podGroupName(wl.Name, templateName), templateName)
	if err != nil {
		return nil, nil, err
	}
	pg.OwnerReferences = append(pg.OwnerReferences, metav1.OwnerReference{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "Workload", Name: wl.Name, UID: uidOf(&wl.ObjectMeta)})
	wl.TypeMeta = metav1.TypeMeta{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "Workload"}
	pg.TypeMeta = metav1.TypeMeta{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "PodGroup"}
	return wl, pg, nil
}

// workloadName is the Job controller's: <job>-<hash of the Job's UID>.
func workloadName(j *batchv1.Job) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(j.UID))
	hash := rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
	prefix := j.Name
	if max := validation.DNS1123SubdomainMaxLength - len(hash) - 1; len(prefix) > max {
		prefix = prefix[:max]
	}
	return prefix + "-" + hash
}

// podGroupName is the Job controller's: <workload>-<template>-<hash of both>, each part
// cut to fit.
func podGroupName(workload, template string) string {
	h := fnv.New32a()
	h.Write([]byte(workload))
	h.Write([]byte(template))
	hash := rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
	room := validation.DNS1123SubdomainMaxLength - len(hash) - 2
	if len(workload)+len(template) > room {
		half := room / 2
		switch {
		case len(workload) <= half:
			template = template[:room-len(workload)]
		case len(template) <= half:
			workload = workload[:room-len(template)]
		default:
			workload, template = workload[:room-half], template[:half]
		}
	}
	return workload + "-" + template + "-" + hash
}
