package workload

import (
	"fmt"
	"math"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The Job controller's pod failure backoff (DefaultJobPodFailureBackOff and
// MaxJobPodFailureBackOff of k8s.io/kubernetes/pkg/controller/job): 10 s for the first failure
// since the last success, doubling with each further one, to at most 10 minutes.
const (
	jobBackoff    = 10 * time.Second
	jobMaxBackoff = 10 * time.Minute
	// defaultBackoffLimit is spec.backoffLimit's default (without backoffLimitPerIndex).
	defaultBackoffLimit = 6
	// annotationIndexFailureCount and annotationIndexIgnoredFailureCount are the failures of
	// a pod's index before it, which the Job controller writes with backoffLimitPerIndex.
	annotationIndexFailureCount        = "batch.kubernetes.io/job-index-failure-count"
	annotationIndexIgnoredFailureCount = "batch.kubernetes.io/job-index-ignored-failure-count"
)

// job models the Job controller for one Job: it keeps min(parallelism, remaining
// completions) pods active, the lowest pending completion indexes first for an Indexed
// Job, and replaces failed pods (a preempted or deleted pod counts as failed), until
// spec.backoffLimit failures. As Kubernetes' controller does, it backs off once for the
// whole Job: one delay computed from the failures since the last success (10 s doubling,
// counted from the latest failure; every failure counts, those a pod failure policy
// ignores too), and every missing pod is created when it ends. With backoffLimitPerIndex
// each index backs off on its own, from its own failures, and fails after that many.
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

	// backoff is the generation of the Job's backoff timer, and backingOff says it runs:
	// no pod is created until it fires (a later failure starts a new one).
	backoff    int
	backingOff bool

	// perIndex is spec.backoffLimitPerIndex (nil without), maxFailedIndexes its limit of
	// failed indexes; indexes holds each index's failures and its own backoff timer.
	perIndex         *int32
	maxFailedIndexes *int32
	failedIndexes    int32
	indexes          map[int]*jobIndex
}

// jobIndex is an index's failures (counted against backoffLimitPerIndex, and ignored by
// the pod failure policy) and its backoff timer's generation while it runs.
type jobIndex struct {
	failures, ignored int32
	timer             int
	backingOff        bool
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
		indexes:      map[int]*jobIndex{},
	}
	if j.Spec.BackoffLimitPerIndex != nil {
		c.perIndex, c.maxFailedIndexes = j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes
		c.backoffLimit = ptrOr(j.Spec.BackoffLimit, math.MaxInt32)
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
	}{{j.Spec.Parallelism, "parallelism"}, {j.Spec.Completions, "completions"}, {j.Spec.BackoffLimit, "backoffLimit"},
		{j.Spec.BackoffLimitPerIndex, "backoffLimitPerIndex"}, {j.Spec.MaxFailedIndexes, "maxFailedIndexes"}} {
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
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	if j.Spec.BackoffLimitPerIndex != nil && !indexed {
		return field.Invalid(spec.Child("backoffLimitPerIndex"), *j.Spec.BackoffLimitPerIndex, "requires indexed completion mode")
	}
	if j.Spec.MaxFailedIndexes != nil && j.Spec.BackoffLimitPerIndex == nil {
		return field.Required(spec.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified")
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
	return c.sync()
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
		if c.backingOff { // a success ends the Job's backoff
			c.backingOff = false
			c.backoff++
		}
		return c.sync()
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

// failed counts a failed pod as the pod failure policy says, then starts the backoff
// after which the missing pods are made.
func (c *job) failed(p *v1.Pod, jp *jobPod) []Action {
	action := c.failureAction(p)
	if action == batchv1.PodFailurePolicyActionFailJob {
		c.finished = true
		return nil
	}
	if c.perIndex != nil && jp.index >= 0 {
		return c.indexFailed(jp.index, action)
	}
	if action == batchv1.PodFailurePolicyActionFailIndex && jp.index >= 0 {
		c.done[jp.index] = true // the index will not be retried
	}
	c.sinceSuccess++ // every failed pod counts for the backoff, ignored ones too
	if action != batchv1.PodFailurePolicyActionIgnore {
		c.failures++
		if c.failures > c.backoffLimit {
			c.finished = true // the Job fails: nothing more is created
			return nil
		}
	}
	// One delay for the Job, from its failures since the last success, counted from this
	// failure (the latest): a backoff already running is replaced.
	c.backoff++
	c.backingOff = true
	gen := c.backoff
	return []Action{{After: backoffDelay(c.sinceSuccess), Then: func() []Action {
		if gen != c.backoff {
			return nil
		}
		c.backingOff = false
		return c.sync()
	}}}
}

// indexFailed counts a failure of an index with backoffLimitPerIndex: the index fails once
// it has failed more than that many times (or at once for FailIndex), else it backs off on
// its own, from all its failures, and the other indexes go on.
func (c *job) indexFailed(index int, action batchv1.PodFailurePolicyAction) []Action {
	ix := c.indexes[index]
	if ix == nil {
		ix = &jobIndex{}
		c.indexes[index] = ix
	}
	absolute := ix.failures + ix.ignored + 1
	counted := action != batchv1.PodFailurePolicyActionIgnore
	if counted {
		c.failures++
		if c.failures > c.backoffLimit {
			c.finished = true
			return nil
		}
	}
	if action == batchv1.PodFailurePolicyActionFailIndex || (counted && ix.failures >= *c.perIndex) {
		c.done[index] = true // the index failed: it is not retried
		c.failedIndexes++
		if c.maxFailedIndexes != nil && c.failedIndexes > *c.maxFailedIndexes {
			c.finished = true
			return nil
		}
		return c.sync()
	}
	if counted {
		ix.failures++
	} else {
		ix.ignored++
	}
	ix.timer++
	ix.backingOff = true
	gen := ix.timer
	return []Action{{After: backoffDelay(absolute), Then: func() []Action {
		if gen != ix.timer {
			return nil
		}
		ix.backingOff = false
		return c.sync()
	}}}
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

// backoffDelay is the Job controller's delay after failures failures since the last
// success (getRemainingTimeForFailuresCount at the latest failure).
func backoffDelay(failures int32) time.Duration {
	if failures <= 0 {
		return 0
	}
	d := jobBackoff
	for i := int32(1); i < failures; i++ {
		d *= 2
		if d >= jobMaxBackoff {
			return jobMaxBackoff
		}
	}
	return d
}

// sync creates the pods that are missing now: none while the Job backs off, and no pod of
// an index that backs off.
func (c *job) sync() []Action {
	if c.finished || c.complete() || c.backingOff {
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
			if c.indexBackingOff(index) {
				// among the first pending indexes, as upstream picks them, but made when its
				// own backoff ends
				continue
			}
		}
		p := c.newPod(index)
		c.pods[p.Name] = &jobPod{index: index}
		acts = append(acts, Action{Object: p})
	}
	return acts
}

func (c *job) indexBackingOff(index int) bool {
	ix := c.indexes[index]
	return ix != nil && ix.backingOff
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
		if c.perIndex != nil {
			var failures, ignored int32
			if ix := c.indexes[index]; ix != nil {
				failures, ignored = ix.failures, ix.ignored
			}
			annotations[annotationIndexFailureCount] = strconv.Itoa(int(failures))
			if ignored > 0 {
				annotations[annotationIndexIgnoredFailureCount] = strconv.Itoa(int(ignored))
			}
		}
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
