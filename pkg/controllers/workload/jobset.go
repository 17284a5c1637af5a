package workload

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// JobSetAPIVersion is the JobSet version read. JobSet's Go module is not a dependency of
// phalanx: JobSet below has the fields its controller reads to make pods, and takes the
// others as they are.
const JobSetAPIVersion = "jobset.x-k8s.io/v1alpha2"

// JobSet is a jobset.x-k8s.io/v1alpha2 JobSet.
type JobSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              JobSetSpec      `json:"spec"`
	Status            json.RawMessage `json:"status,omitempty"`
}

// JobSetSpec is a JobSet's spec; the fields that do not change which pods are made, or
// when, are kept unread.
type JobSetSpec struct {
	ReplicatedJobs []ReplicatedJob  `json:"replicatedJobs,omitempty"`
	Network        *JobSetNetwork   `json:"network,omitempty"`
	StartupPolicy  *JobSetStartup   `json:"startupPolicy,omitempty"`
	Suspend        *bool            `json:"suspend,omitempty"`
	SuccessPolicy  *json.RawMessage `json:"successPolicy,omitempty"`
	FailurePolicy  *json.RawMessage `json:"failurePolicy,omitempty"`
	Coordinator    *json.RawMessage `json:"coordinator,omitempty"`
	ManagedBy      *string          `json:"managedBy,omitempty"`
	// TTLSecondsAfterFinished and VolumeClaimPolicies are not simulated.
	TTLSecondsAfterFinished *int32           `json:"ttlSecondsAfterFinished,omitempty"`
	VolumeClaimPolicies     *json.RawMessage `json:"volumeClaimPolicies,omitempty"`
}

// ReplicatedJob is replicas Jobs of one template.
type ReplicatedJob struct {
	Name      string                  `json:"name"`
	GroupName string                  `json:"groupName,omitempty"`
	Template  batchv1.JobTemplateSpec `json:"template"`
	Replicas  *int32                  `json:"replicas,omitempty"`
	DependsOn []JobSetDependsOn       `json:"dependsOn,omitempty"`
}

// JobSetDependsOn holds a replicated Job back until an earlier one is Ready or Complete.
type JobSetDependsOn struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// JobSetNetwork gives the pods hostnames in a subdomain (on by default).
type JobSetNetwork struct {
	EnableDNSHostnames       *bool  `json:"enableDNSHostnames,omitempty"`
	Subdomain                string `json:"subdomain,omitempty"`
	PublishNotReadyAddresses *bool  `json:"publishNotReadyAddresses,omitempty"`
}

// JobSetStartup is the deprecated startupPolicy: InOrder starts a replicated Job when
// every Job of the one before it is ready.
type JobSetStartup struct {
	StartupPolicyOrder string `json:"startupPolicyOrder"`
}

// JobSet's labels and annotations on its Jobs and their pods.
const (
	jobSetName           = "jobset.sigs.k8s.io/jobset-name"
	jobSetReplicatedJob  = "jobset.sigs.k8s.io/replicatedjob-name"
	jobSetRestarts       = "jobset.sigs.k8s.io/restart-attempt"
	jobSetRJobReplicas   = "jobset.sigs.k8s.io/replicatedjob-replicas"
	jobSetGlobalReplicas = "jobset.sigs.k8s.io/global-replicas"
	jobSetJobIndex       = "jobset.sigs.k8s.io/job-index"
	jobSetJobKey         = "jobset.sigs.k8s.io/job-key"
	jobSetGlobalIndex    = "jobset.sigs.k8s.io/job-global-index"
	// jobSetExclusive asks JobSet's webhook for one Job per topology domain.
	jobSetExclusive = "alpha.jobset.sigs.k8s.io/exclusive-topology"
)

// jobSet models JobSet's controller: replicas Jobs per replicated Job, named
// <jobset>-<replicated job>-<index>, each made into pods by the Job controller (Indexed
// by default); with dependsOn or the InOrder startup policy a replicated Job's Jobs are
// created once the ones it waits for are ready (every pod running or done) or complete.
type jobSet struct {
	ref     Ref
	obj     *JobSet
	rjobs   [][]*job // the Jobs of each replicated Job
	started []bool
	stopped bool
}

func newJobSet(js *JobSet, path *field.Path) (Controller, []string, *field.Error) {
	defaultNamespace(&js.ObjectMeta)
	spec := path.Child("spec")
	if js.Name == "" {
		return nil, nil, field.Required(path.Child("metadata", "name"), "")
	}
	if len(js.Spec.ReplicatedJobs) == 0 {
		return nil, nil, field.Required(spec.Child("replicatedJobs"), "")
	}
	c := &jobSet{ref: Ref{Kind: "JobSet", Namespace: js.Namespace, Name: js.Name}, obj: js}
	owner := controllerRef(JobSetAPIVersion, "JobSet", &js.ObjectMeta)
	global := 0
	for _, rj := range js.Spec.ReplicatedJobs {
		global += int(ptrOr(rj.Replicas, 1))
	}
	seen := map[string]bool{}
	var warnings []string
	globalIndex := 0
	for i := range js.Spec.ReplicatedJobs {
		rj := &js.Spec.ReplicatedJobs[i]
		rpath := spec.Child("replicatedJobs").Index(i)
		switch {
		case rj.Name == "":
			return nil, nil, field.Required(rpath.Child("name"), "")
		case seen[rj.Name]:
			return nil, nil, field.Duplicate(rpath.Child("name"), rj.Name)
		case rj.Replicas != nil && *rj.Replicas < 0:
			return nil, nil, field.Invalid(rpath.Child("replicas"), *rj.Replicas, "must be greater than or equal to 0")
		case i == 0 && len(rj.DependsOn) > 0:
			return nil, nil, field.Forbidden(rpath.Child("dependsOn"), "DependsOn can't be set for the first ReplicatedJob")
		}
		for k, d := range rj.DependsOn {
			if !seen[d.Name] {
				return nil, nil, field.Invalid(rpath.Child("dependsOn").Index(k).Child("name"), d.Name, "must name an earlier replicated Job")
			}
			if d.Status != "Ready" && d.Status != "Complete" {
				return nil, nil, field.NotSupported(rpath.Child("dependsOn").Index(k).Child("status"), d.Status, []string{"Ready", "Complete"})
			}
		}
		seen[rj.Name] = true
		if _, ok := js.Annotations[jobSetExclusive]; ok || rj.Template.Annotations[jobSetExclusive] != "" {
			warnings = append(warnings, fmt.Sprintf("%s: %s: exclusive placement is not simulated: the Jobs' pods are placed without the affinities JobSet's webhook adds", c.ref, rpath.Child("template", "metadata", "annotations").Key(jobSetExclusive)))
		}
		var jobs []*job
		for idx := range int(ptrOr(rj.Replicas, 1)) {
			j, err := newJob(c.jobFor(rj, idx, globalIndex, global, owner), rpath.Child("template"), Options{})
			if err != nil {
				return nil, nil, err
			}
			jobs = append(jobs, j)
			globalIndex++
		}
		c.rjobs = append(c.rjobs, jobs)
	}
	c.started = make([]bool, len(c.rjobs))
	return c, warnings, nil
}

// jobFor is the Job JobSet's controller makes: the template with JobSet's defaults
// (Indexed, restartPolicy OnFailure, the pods' subdomain) and its labels and annotations
// on the Job and its pod template.
func (c *jobSet) jobFor(rj *ReplicatedJob, idx, globalIndex, global int, owner metav1.OwnerReference) *batchv1.Job {
	js := c.obj
	name := fmt.Sprintf("%s-%s-%d", js.Name, rj.Name, idx)
	j := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Namespace: js.Namespace, Name: name, OwnerReferences: []metav1.OwnerReference{owner},
			Labels: maps.Clone(rj.Template.Labels), Annotations: maps.Clone(rj.Template.Annotations)},
		Spec: *rj.Template.Spec.DeepCopy(),
	}
	if j.Spec.CompletionMode == nil {
		indexed := batchv1.IndexedCompletion
		j.Spec.CompletionMode = &indexed
	}
	if j.Spec.Template.Spec.RestartPolicy == "" {
		j.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyOnFailure
	}
	if n := js.Spec.Network; n == nil || n.EnableDNSHostnames == nil || *n.EnableDNSHostnames {
		j.Spec.Template.Spec.Subdomain = js.Name
		if n != nil && n.Subdomain != "" {
			j.Spec.Template.Spec.Subdomain = n.Subdomain
		}
	}
	if js.Spec.Suspend != nil && *js.Spec.Suspend {
		j.Spec.Suspend = js.Spec.Suspend
	}
	key := sha1.Sum([]byte(js.Namespace + "/" + name))
	marks := map[string]string{
		jobSetName: js.Name, jobSetReplicatedJob: rj.Name, jobSetRestarts: "0",
		jobSetRJobReplicas: strconv.Itoa(int(ptrOr(rj.Replicas, 1))), jobSetGlobalReplicas: strconv.Itoa(global),
		jobSetJobIndex: strconv.Itoa(idx), jobSetJobKey: hex.EncodeToString(key[:]), jobSetGlobalIndex: strconv.Itoa(globalIndex),
	}
	for _, m := range []*metav1.ObjectMeta{&j.ObjectMeta, &j.Spec.Template.ObjectMeta} {
		m.Labels = mergeInto(m.Labels, marks)
		m.Annotations = mergeInto(m.Annotations, marks)
		if v, ok := js.Annotations[jobSetExclusive]; ok {
			m.Annotations[jobSetExclusive] = v
		}
	}
	return j
}

func mergeInto(m, add map[string]string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, add)
	return m
}

func (c *jobSet) Made() []runtime.Object { return nil }
func (c *jobSet) Workload() Ref          { return c.ref }

func (c *jobSet) Templates() []Template {
	var ts []Template
	for _, jobs := range c.rjobs {
		for _, j := range jobs {
			ts = append(ts, j.tmpl)
		}
	}
	return ts
}

func (c *jobSet) Stop() {
	c.stopped = true
	for _, jobs := range c.rjobs {
		for _, j := range jobs {
			j.Stop()
		}
	}
}

func (c *jobSet) Start() []Action { return c.startReady() }

func (c *jobSet) Observe(p *v1.Pod, ch Change) []Action {
	var acts []Action
	for _, jobs := range c.rjobs {
		for _, j := range jobs {
			acts = append(acts, j.Observe(p, ch)...)
		}
	}
	return append(acts, c.startReady()...)
}

// startReady starts the replicated Jobs whose turn has come.
func (c *jobSet) startReady() []Action {
	if c.stopped {
		return nil
	}
	inOrder := c.obj.Spec.StartupPolicy != nil && c.obj.Spec.StartupPolicy.StartupPolicyOrder == "InOrder"
	var acts []Action
	for i, jobs := range c.rjobs {
		if c.started[i] {
			continue
		}
		if !c.mayStart(i, inOrder) {
			break
		}
		c.started[i] = true
		for _, j := range jobs {
			acts = append(acts, j.Start()...)
		}
	}
	return acts
}

func (c *jobSet) mayStart(i int, inOrder bool) bool {
	if i == 0 {
		return true
	}
	if inOrder {
		return c.started[i-1] && allJobs(c.rjobs[i-1], (*job).ready)
	}
	for _, d := range c.obj.Spec.ReplicatedJobs[i].DependsOn {
		for k, rj := range c.obj.Spec.ReplicatedJobs[:i] {
			if rj.Name != d.Name {
				continue
			}
			cond := (*job).ready
			if d.Status == "Complete" {
				cond = (*job).complete
			}
			if !c.started[k] || !allJobs(c.rjobs[k], cond) {
				return false
			}
		}
	}
	return true
}

func allJobs(jobs []*job, cond func(*job) bool) bool {
	for _, j := range jobs {
		if !cond(j) {
			return false
		}
	}
	return true
}
