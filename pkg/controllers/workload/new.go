package workload

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Kinds are the workloads modelled, by apiVersion/kind, with a new empty object of each
// to decode into.
var Kinds = map[string]func() any{
	"batch/v1/Job":               func() any { return &batchv1.Job{} },
	"apps/v1/Deployment":         func() any { return &appsv1.Deployment{} },
	"apps/v1/ReplicaSet":         func() any { return &appsv1.ReplicaSet{} },
	"apps/v1/StatefulSet":        func() any { return &appsv1.StatefulSet{} },
	JobSetAPIVersion + "/JobSet": func() any { return &JobSet{} },
}

// New returns the model of a workload's controller. The error is what the API server (or
// the workload's admission webhook) would refuse the object for, with its field path;
// warnings name what the model leaves out.
func New(obj any, opts Options) (c Controller, warnings []string, err *field.Error) {
	switch o := obj.(type) {
	case *batchv1.Job:
		return asController(newJob(o, nil, opts))
	case *appsv1.ReplicaSet:
		return asController(newReplicaSet(o, nil))
	case *appsv1.Deployment:
		return asController(newDeployment(o, nil))
	case *appsv1.StatefulSet:
		return asController(newStatefulSet(o, nil))
	case *JobSet:
		return newJobSet(o, nil)
	}
	return nil, nil, field.InternalError(nil, fmt.Errorf("%T is not a workload", obj))
}

// asController drops the concrete type, keeping a nil error nil.
func asController[T Controller](c T, err *field.Error) (Controller, []string, *field.Error) {
	if err != nil {
		return nil, nil, err
	}
	return c, nil, nil
}
