package workload

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The Job controller's pod failure backoff: 10 s after the first failure since the last
// success, doubling to at most 10 minutes.
const (
	jobBackoff    = 10 * time.Second
	jobMaxBackoff = 10 * time.Minute
	// defaultBackoffLimit is spec.backoffLimit's default.
	defaultBackoffLimit = 6
)

// job models the Job controller for one Job: it keeps min(parallelism, remaining
// completions) pods active, the lowest pending completion indexes first for an Indexed
// Job, and replaces failed pods (a preempted or deleted pod counts as failed) after its
// backoff, until spec.backoffLimit failures.
type job struct {
	ref   Ref
	obj   *batchv1.Job
	owner metav1.OwnerReference
	tmpl  Template
	names names

	indexed      bool
	completions  *int32 // nil: a work queue, done when one pod succeeds
	parallelism  int32
	backoffLimit int32
	// replaceFailedOnly: podReplacementPolicy Failed (the default with a podFailurePolicy)
	// replaces a pod once it is gone, not when its deletion starts.
	replaceFailedOnly bool

	// group is the PodGroup the Job controller made for the Job (WorkloadWithJob), made
	// holds it and its Workload.
	group *schedulingv1beta1.PodGroup
	made  []runtime.Object

	pods      map[string]*jobPod
	succeeded int32
	done      map[int]bool // succeeded completion indexes
	// failures counts failed pods against backoffLimit; sinceSuccess those after the last
	// success, for the backoff.
	failures, sinceSuccess int32
	finished               bool
}

// jobPod is a pod of the Job that is not finished.
type jobPod struct {
	index                int // -1 when not Indexed
	running, terminating bool
}

func newJob(j *batchv1.Job, path *field.Path, opts Options) (*job, *field.Error) {
	defaultNamespace(&j.ObjectMeta)
	if err := validateJob(j, path); err != nil {
		return nil, err
	}
	c := &job{
		ref:          Ref{Kind: "Job", Namespace: j.Namespace, Name: j.Name},
		obj:          j,
		owner:        controllerRef("batch/v1", "Job", &j.ObjectMeta),
		names:        names{seed: "Job/" + j.Namespace + "/" + j.Name},
		indexed:      j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion,
		completions:  j.Spec.Completions,
		parallelism:  ptrOr(j.Spec.Parallelism, 1),
		backoffLimit: ptrOr(j.Spec.BackoffLimit, defaultBackoffLimit),
		pods:         map[string]*jobPod{},
		done:         map[int]bool{},
	}
	if p := j.Spec.PodReplacementPolicy; p != nil {
		c.replaceFailedOnly = *p == batchv1.Failed
	} else {
		c.replaceFailedOnly = j.Spec.PodFailurePolicy != nil
	}
	c.tmpl = Template{Path: path.Child("spec", "template").String(), Pod: templatePod(&j.Spec.Template, j.Namespace, j.Name)}
	if opts.WorkloadWithJob && managesGroup(j) {
		wl, pg, err := jobGroup(j, c.owner)
		if err != nil {
			return nil, field.Invalid(path.Child("spec", "scheduling"), j.Spec.Scheduling, err.Error())
		}
		c.group, c.made = pg, []runtime.Object{wl, pg}
	}
	return c, nil
}

func validateJob(j *batchv1.Job, path *field.Path) *field.Error {
	spec := path.Child("spec")
	if j.Name == "" {
		return field.Required(path.Child("metadata", "name"), "")
	}
	for _, f := range []struct {
		v    *int32
		name string
	}{{j.Spec.Parallelism, "parallelism"}, {j.Spec.Completions, "completions"}, {j.Spec.BackoffLimit, "backoffLimit"}} {
		if f.v != nil && *f.v < 0 {
			return field.Invalid(spec.Child(f.name), *f.v, "must be greater than or equal to 0")
		}
	}
	if m := j.Spec.CompletionMode; m != nil && *m != batchv1.NonIndexedCompletion && *m != batchv1.IndexedCompletion {
		return field.NotSupported(spec.Child("completionMode"), *m, []string{string(batchv1.NonIndexedCompletion), string(batchv1.IndexedCompletion)})
	}
	if m := j.Spec.CompletionMode; m != nil && *m == batchv1.IndexedCompletion && j.Spec.Completions == nil {
		return field.Required(spec.Child("completions"), "when completion mode is Indexed")
	}
	switch rp := j.Spec.Template.Spec.RestartPolicy; rp {
	case v1.RestartPolicyOnFailure, v1.RestartPolicyNever:
	case "":
		return field.Required(spec.Child("template", "spec", "restartPolicy"), "valid values: \"OnFailure\", \"Never\"")
	default:
		return field.NotSupported(spec.Child("template", "spec", "restartPolicy"), rp, []string{string(v1.RestartPolicyOnFailure), string(v1.RestartPolicyNever)})
	}
	return nil
}

func (c *job) Workload() Ref          { return c.ref }
func (c *job) Made() []runtime.Object { return c.made }
func (c *job) Templates() []Template  { return []Template{c.tmpl} }
func (c *job) Stop()                  { c.finished = true }

// Start creates the first pods, none for a suspended Job (the simulation never resumes it).
func (c *job) Start() []Action {
	if c.obj.Spec.Suspend != nil && *c.obj.Spec.Suspend {
		return nil
	}
	return c.sync(0)
}

func (c *job) Observe(p *v1.Pod, ch Change) []Action {
	jp := c.pods[p.Name]
	if jp == nil {
		return nil
	}
	switch ch {
	case Running:
		jp.running = true
	case Succeeded:
		delete(c.pods, p.Name)
		c.succeeded++
		if jp.index >= 0 {
			c.done[jp.index] = true
		}
		c.sinceSuccess = 0
		return c.sync(0)
	case Terminating:
		if jp.terminating {
			return nil
		}
		jp.terminating = true
		if c.replaceFailedOnly {
			return nil
		}
		return c.failed(p, jp)
	case Gone:
		delete(c.pods, p.Name)
		if jp.terminating && !c.replaceFailedOnly {
			return nil // counted when its deletion started
		}
		return c.failed(p, jp)
	}
	return nil
}

// failed counts a failed pod as the pod failure policy says, then replaces it.
func (c *job) failed(p *v1.Pod, jp *jobPod) []Action {
	switch c.failureAction(p) {
	case batchv1.PodFailurePolicyActionIgnore:
		return c.sync(0)
	case batchv1.PodFailurePolicyActionFailJob:
		c.finished = true
		return nil
	case batchv1.PodFailurePolicyActionFailIndex:
		if jp.index >= 0 {
			c.done[jp.index] = true // the index will not be retried
		}
	}
	c.failures++
	c.sinceSuccess++
	if c.failures > c.backoffLimit {
		c.finished = true // the Job fails: nothing more is created
		return nil
	}
	return c.sync(c.backoff())
}

// failureAction is the first podFailurePolicy rule matching the pod's conditions (a
// preempted pod has DisruptionTarget); rules on exit codes never match, as a simulated pod
// has none. Count when none matches.
func (c *job) failureAction(p *v1.Pod) batchv1.PodFailurePolicyAction {
	if c.obj.Spec.PodFailurePolicy == nil {
		return batchv1.PodFailurePolicyActionCount
	}
	for _, r := range c.obj.Spec.PodFailurePolicy.Rules {
		for _, pat := range r.OnPodConditions {
			status := pat.Status
			if status == "" {
				status = v1.ConditionTrue
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type == pat.Type && cond.Status == status {
					return r.Action
				}
			}
		}
	}
	return batchv1.PodFailurePolicyActionCount
}

func (c *job) backoff() time.Duration {
	d := jobBackoff
	for i := int32(1); i < c.sinceSuccess && d < jobMaxBackoff; i++ {
		d *= 2
	}
	return min(d, jobMaxBackoff)
}

// sync creates the pods that are missing, after delay.
func (c *job) sync(delay time.Duration) []Action {
	if c.finished || c.complete() {
		return nil
	}
	var active, terminating int32
	activeIndex := map[int]bool{}
	for _, jp := range c.pods {
		if jp.terminating {
			terminating++
			continue
		}
		active++
		activeIndex[jp.index] = true
	}
	diff := c.wantActive() - active
	if c.replaceFailedOnly {
		diff -= terminating
	}
	var acts []Action
	for next := 0; diff > 0; diff-- {
		index := -1
		if c.indexed {
			for ; next < int(*c.completions) && (c.done[next] || activeIndex[next]); next++ {
			}
			if next >= int(*c.completions) {
				break
			}
			index = next
			next++
		}
		p := c.newPod(index)
		c.pods[p.Name] = &jobPod{index: index}
		acts = append(acts, Action{After: delay, Object: p})
	}
	return acts
}

func (c *job) complete() bool {
	switch {
	case c.completions == nil:
		return c.succeeded > 0 && len(c.pods) == 0
	case c.indexed:
		return len(c.done) >= int(*c.completions)
	}
	return c.succeeded >= *c.completions
}

// ready is JobSet's notion of a ready Job: as many pods running or succeeded as it
// runs at once, min(parallelism, completions).
func (c *job) ready() bool {
	n := c.succeeded
	for _, jp := range c.pods {
		if jp.running && !jp.terminating {
			n++
		}
	}
	want := c.parallelism
	if c.completions != nil {
		want = min(want, *c.completions)
	}
	return n >= want
}

func (c *job) wantActive() int32 {
	switch {
	case c.completions == nil:
		if c.succeeded > 0 {
			return 0
		}
		return c.parallelism
	case c.indexed:
		return max(0, min(c.parallelism, *c.completions-int32(len(c.done))))
	}
	return max(0, min(c.parallelism, *c.completions-c.succeeded))
}

// newPod is a pod as the Job controller makes it: generated name (with the completion
// index for an Indexed Job), the Job's selector labels (the API server adds them to the
// template), the completion index label and annotation, and the hostname.
func (c *job) newPod(index int) *v1.Pod {
	uid := string(c.owner.UID)
	labels := map[string]string{}
	if c.obj.Spec.ManualSelector == nil || !*c.obj.Spec.ManualSelector {
		labels = map[string]string{labelJobControllerUID: uid, labelJobName: c.obj.Name,
			labelLegacyControllerUID: uid, labelLegacyJobName: c.obj.Name}
	}
	var annotations map[string]string
	prefix := c.obj.Name + "-"
	if index >= 0 {
		idx := strconv.Itoa(index)
		labels[annotationCompletionIndex] = idx
		annotations = map[string]string{annotationCompletionIndex: idx}
		prefix = fmt.Sprintf("%s-%d-", c.obj.Name, index)
		if len(prefix) > maxGeneratedNameLength {
			suffix := fmt.Sprintf("-%d-", index)
			prefix = prefix[:maxGeneratedNameLength-len(suffix)] + suffix
		}
	}
	p := instance(c.tmpl.Pod, c.names.next(prefix), c.owner, labels, annotations)
	if g := c.group; g != nil {
		name := g.Name
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name}
		p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{APIVersion: g.APIVersion, Kind: g.Kind, Name: g.Name, UID: uidOf(&g.ObjectMeta)})
	}
	if index >= 0 && p.Spec.Hostname == "" {
		p.Spec.Hostname = fmt.Sprintf("%s-%d", c.obj.Name, index)
	}
	return p
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func defaultNamespace(m *metav1.ObjectMeta) {
	if m.Namespace == "" {
		m.Namespace = v1.NamespaceDefault
	}
}
