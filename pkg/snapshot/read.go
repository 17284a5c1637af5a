package snapshot

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/pager"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/driver/kube"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// Resource is an API resource: its group ("" for the core group) and plural name.
type Resource struct{ Group, Name string }

// Reads are the resources a snapshot lists, and all it asks of the API server besides
// discovery: it never writes. config/snapshot/cluster-role.yaml grants exactly these.
var Reads = []Resource{
	{"", "namespaces"}, {"scheduling.k8s.io", "priorityclasses"}, {"", "nodes"},
	{"storage.k8s.io", "storageclasses"}, {"storage.k8s.io", "csinodes"},
	{"storage.k8s.io", "csidrivers"}, {"storage.k8s.io", "csistoragecapacities"}, {"storage.k8s.io", "volumeattachments"}, {"", "persistentvolumes"}, {"", "persistentvolumeclaims"},
	{"resource.k8s.io", "deviceclasses"}, {"resource.k8s.io", "resourceslices"}, {"resource.k8s.io", "devicetaintrules"}, {"resource.k8s.io", "resourceclaimtemplates"}, {"resource.k8s.io", "resourceclaims"},
	{v1alpha1.SchemeGroupVersion.Group, "podgroups"}, {v1alpha1.SchemeGroupVersion.Group, "compositepodgroups"},
	{nativegroup.GroupName, "workloads"}, {nativegroup.GroupName, "podgroups"}, {nativegroup.GroupName, "compositepodgroups"},
	{"policy", "poddisruptionbudgets"}, {"", "pods"}, {"batch", "jobs"},
}

// DefaultPageSize is how many objects one list request asks for: ten times kubectl's
// chunk, a tenth of the round trips on a large cluster (decision 21).
const DefaultPageSize = 5000

// Options narrow and tune a snapshot.
type Options struct {
	// Namespace and Selector (a label selector) narrow the pods written, Namespace the
	// queued Jobs too; other objects are all written. Nodes then look emptier than they are.
	Namespace, Selector string
	// PageSize is the list requests' limit (DefaultPageSize when 0).
	PageSize int64
	// Progress, when set, gets a line per kind listed (and one every 10,000 pods).
	Progress io.Writer
	// Now is the time the snapshot is taken at, for the time a terminating pod has left
	// (time.Now when nil).
	Now func() time.Time
}

// Source is the cluster a snapshot reads.
type Source struct {
	Kube kubernetes.Interface
	// PodGroups reads phalanx's PodGroup CRD; nil when the cluster does not serve it.
	// Composites says whether the cluster serves phalanx's CompositePodGroup CRD too.
	PodGroups  *kube.PodGroupClient
	Composites bool
	// NativeVersion is the newest scheduling.k8s.io version the cluster serves PodGroups
	// and Workloads in ("" for none), V1alpha2 the client that reads that version (which
	// client-go has no client for).
	NativeVersion string
	V1alpha2      rest.Interface
	// NativeComposites says whether the cluster serves scheduling.k8s.io/v1alpha3
	// CompositePodGroups (whatever its newest PodGroup version).
	NativeComposites bool
}

// NewSource connects to the cluster of a client configuration: protobuf for Kubernetes'
// kinds, JSON for the CRD, which is read only when served.
func NewSource(cfg *rest.Config) (*Source, error) {
	c := rest.CopyConfig(cfg)
	c.UserAgent = "phalanx-snapshot"
	c.QPS, c.Burst = -1, 0 // one list at a time: the server's Priority and Fairness is the limit
	pb := rest.CopyConfig(c)
	pb.ContentType = runtime.ContentTypeProtobuf
	pb.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cs, err := kubernetes.NewForConfig(pb)
	if err != nil {
		return nil, err
	}
	src := &Source{Kube: cs}
	served, err := kube.Serves(cs.Discovery(), v1alpha1.SchemeGroupVersion.String(), "podgroups")
	if err != nil {
		return nil, err
	}
	if src.NativeVersion, err = kube.NewestNativeVersion(cs.Discovery()); err != nil {
		return nil, err
	}
	if src.NativeComposites, err = kube.Serves(cs.Discovery(), nativegroup.V1alpha3, "compositepodgroups"); err != nil {
		return nil, err
	}
	if src.NativeVersion == nativegroup.V1alpha2 {
		if src.V1alpha2, err = kube.NewV1alpha2Client(c); err != nil {
			return nil, err
		}
	}
	if served {
		if src.Composites, err = kube.Serves(cs.Discovery(), v1alpha1.SchemeGroupVersion.String(), "compositepodgroups"); err != nil {
			return nil, err
		}
		scheme, err := kube.NewScheme()
		if err != nil {
			return nil, err
		}
		if src.PodGroups, err = kube.NewPodGroupClient(c, scheme); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// reader lists one kind after the other.
type reader struct {
	ctx  context.Context
	opts Options
	snap *Snapshot
}

// Take reads a snapshot of the cluster: every kind with paginated lists (each list one
// consistent read, kind after kind), stripped as it arrives.
func Take(ctx context.Context, src *Source, opts Options) (*Snapshot, error) {
	if opts.PageSize == 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := &reader{ctx: ctx, opts: opts, snap: &Snapshot{}}
	s, k := r.snap, src.Kube
	now := opts.Now()
	var pods []stamped
	ending := map[string]bool{} // namespaces being deleted
	err := firstError(
		func() error {
			return list(r, "namespaces", k.CoreV1().Namespaces().List, func(o *v1.Namespace) {
				s.Namespaces = append(s.Namespaces, namespace(o))
				if o.DeletionTimestamp != nil || o.Status.Phase == v1.NamespaceTerminating {
					ending[o.Name] = true
				}
			})
		},
		func() error {
			return list(r, "priorityclasses", k.SchedulingV1().PriorityClasses().List, func(o *schedulingv1.PriorityClass) {
				if !builtinPriorityClasses[o.Name] {
					s.PriorityClasses = append(s.PriorityClasses, priorityClass(o))
				}
			})
		},
		func() error {
			return list(r, "nodes", k.CoreV1().Nodes().List, func(o *v1.Node) { s.Nodes = append(s.Nodes, node(o)) })
		},
		func() error {
			return list(r, "storageclasses", k.StorageV1().StorageClasses().List, func(o *storagev1.StorageClass) {
				s.StorageClasses = append(s.StorageClasses, storageClass(o))
			})
		},
		func() error {
			return list(r, "csinodes", k.StorageV1().CSINodes().List, func(o *storagev1.CSINode) { s.CSINodes = append(s.CSINodes, csiNode(o)) })
		},
		func() error {
			return list(r, "csidrivers", k.StorageV1().CSIDrivers().List, func(o *storagev1.CSIDriver) { s.CSIDrivers = append(s.CSIDrivers, csiDriver(o)) })
		},
		func() error {
			return list(r, "csistoragecapacities", k.StorageV1().CSIStorageCapacities("").List, func(o *storagev1.CSIStorageCapacity) {
				s.StorageCapacities = append(s.StorageCapacities, storageCapacity(o))
			})
		},
		func() error {
			return list(r, "volumeattachments", k.StorageV1().VolumeAttachments().List, func(o *storagev1.VolumeAttachment) {
				if a := volumeAttachment(o); a != nil {
					s.VolumeAttachments = append(s.VolumeAttachments, a)
				}
			})
		},
		func() error {
			return list(r, "persistentvolumes", k.CoreV1().PersistentVolumes().List, func(o *v1.PersistentVolume) {
				s.PVs = append(s.PVs, persistentVolume(o))
			})
		},
		func() error {
			return list(r, "persistentvolumeclaims", k.CoreV1().PersistentVolumeClaims("").List, func(o *v1.PersistentVolumeClaim) {
				s.PVCs = append(s.PVCs, persistentVolumeClaim(o))
			})
		},
		func() error {
			return list(r, "deviceclasses", k.ResourceV1().DeviceClasses().List, func(o *resourceapi.DeviceClass) {
				s.DeviceClasses = append(s.DeviceClasses, deviceClass(o))
			})
		},
		func() error {
			return list(r, "resourceslices", k.ResourceV1().ResourceSlices().List, func(o *resourceapi.ResourceSlice) {
				s.ResourceSlices = append(s.ResourceSlices, resourceSlice(o))
			})
		},
		func() error {
			return list(r, "devicetaintrules", k.ResourceV1().DeviceTaintRules().List, func(o *resourceapi.DeviceTaintRule) {
				s.TaintRules = append(s.TaintRules, deviceTaintRule(o))
			})
		},
		func() error {
			return list(r, "resourceclaimtemplates", k.ResourceV1().ResourceClaimTemplates("").List, func(o *resourceapi.ResourceClaimTemplate) {
				s.ClaimTemplates = append(s.ClaimTemplates, claimTemplate(o))
			})
		},
		func() error {
			return list(r, "resourceclaims", k.ResourceV1().ResourceClaims("").List, func(o *resourceapi.ResourceClaim) {
				s.Claims = append(s.Claims, resourceClaim(o))
			})
		},
		func() error {
			if src.PodGroups == nil {
				s.Notes = append(s.Notes, "podgroups."+v1alpha1.SchemeGroupVersion.Group+": not served by the API server, left out")
				return nil
			}
			return list(r, "podgroups", src.PodGroups.List, func(o *v1alpha1.PodGroup) { s.PodGroups = append(s.PodGroups, podGroup(o)) })
		},
		func() error {
			if src.PodGroups == nil || !src.Composites {
				s.Notes = append(s.Notes, "compositepodgroups."+v1alpha1.SchemeGroupVersion.Group+": not served by the API server, left out")
				return nil
			}
			return list(r, "compositepodgroups", src.PodGroups.ListComposites, func(o *v1alpha1.CompositePodGroup) {
				s.Composites = append(s.Composites, compositePodGroup(o))
			})
		},
		func() error { return r.native(src) },
		func() error {
			return list(r, "poddisruptionbudgets", k.PolicyV1().PodDisruptionBudgets("").List, func(o *policyv1.PodDisruptionBudget) {
				s.PDBs = append(s.PDBs, pdb(o))
			})
		},
		func() error {
			// Finished pods hold no room; the scheduler never sees them either.
			o := metav1.ListOptions{LabelSelector: opts.Selector, FieldSelector: fields.AndSelectors(
				fields.OneTermNotEqualSelector("status.phase", string(v1.PodSucceeded)),
				fields.OneTermNotEqualSelector("status.phase", string(v1.PodFailed))).String()}
			return listWith(r, "pods", o, k.CoreV1().Pods(opts.Namespace).List, func(p *v1.Pod) {
				switch {
				case p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed:
					return // in case a server ignores the field selector
				case p.DeletionTimestamp != nil && p.Spec.NodeName == "":
					return // the API server removes a pending pod at once
				}
				pods = append(pods, stamped{p.CreationTimestamp.Time, pod(p, now)})
			})
		},
		func() error {
			// Only the queued ones: a running Job's pods are in the snapshot already.
			return list(r, "jobs", k.BatchV1().Jobs("").List, func(j *batchv1.Job) {
				if queued(j) && (opts.Namespace == "" || j.Namespace == opts.Namespace) {
					s.QueuedJobs = append(s.QueuedJobs, job(j))
				}
			})
		},
	)
	if err != nil {
		return nil, err
	}
	s.sort(pods, ending)
	return s, nil
}

// builtinPriorityClasses are made by every API server, and by the simulator.
var builtinPriorityClasses = map[string]bool{"system-cluster-critical": true, "system-node-critical": true}

// stamped is a pod with its creation time, by which pods are ordered.
type stamped struct {
	created time.Time
	pod     *v1.Pod
}

// sort puts every kind in its fixed order and leaves out pods of nodes that are gone.
func (s *Snapshot) sort(pods []stamped, ending map[string]bool) {
	byName(s.Namespaces)
	byName(s.PriorityClasses)
	byName(s.Nodes)
	byName(s.StorageClasses)
	byName(s.CSINodes)
	byName(s.CSIDrivers)
	byName(s.StorageCapacities)
	byName(s.VolumeAttachments)
	byName(s.PVs)
	byName(s.PVCs)
	byName(s.DeviceClasses)
	byName(s.ResourceSlices)
	byName(s.TaintRules)
	byName(s.ClaimTemplates)
	byName(s.Claims)
	byName(s.Composites)
	byName(s.PodGroups)
	byName(s.NativeWorkloads)
	byName(s.NativeComposites)
	byName(s.NativePodGroups)
	byName(s.PDBs)
	byName(s.QueuedJobs)
	slices.SortFunc(pods, func(a, b stamped) int {
		return cmp.Or(a.created.Compare(b.created), cmp.Compare(a.pod.Namespace, b.pod.Namespace), cmp.Compare(a.pod.Name, b.pod.Name))
	})
	nodes := map[string]bool{}
	for _, n := range s.Nodes {
		nodes[n.Name] = true
	}
	classes := maps.Clone(builtinPriorityClasses)
	for _, c := range s.PriorityClasses {
		classes[c.Name] = true
	}
	gone, classless := 0, 0
	for _, p := range pods {
		if n := p.pod.Spec.NodeName; n != "" && !nodes[n] {
			gone++
			continue
		}
		// A class deleted after its pods were made: they keep the priority it gave them.
		if c := p.pod.Spec.PriorityClassName; c != "" && !classes[c] && p.pod.Spec.Priority != nil {
			p.pod.Spec.PriorityClassName = ""
			classless++
		}
		s.Pods = append(s.Pods, p.pod)
	}
	if gone > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("pods: %d bound to nodes that no longer exist, left out", gone))
	}
	if classless > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("pods: the names of %d pods' PriorityClasses, which no longer exist (their priority is kept)", classless))
	}
	groups := 0
	for _, g := range slices.Concat(s.NativeComposites, s.NativePodGroups) {
		if keepPriority(g, classes) {
			groups++
		}
	}
	if groups > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("pod groups: the names of %d groups' PriorityClasses, which no longer exist (their priority is kept, or the default one when they had none)", groups))
	}
	s.QueuedJobs = s.dropUnstartable(s.QueuedJobs, ending, classes)
}

// dropUnstartable leaves out the queued Jobs whose pods the API server would refuse if
// they were admitted: those of a namespace being deleted (no object can be created in it)
// and those whose pod template names a PriorityClass that no longer exists (the Priority
// admission plugin refuses such a pod). The API server keeps such a Job, but it can never
// run, so a what-if that admits it would answer about something that cannot happen; and
// the simulator's admission, like the API server's for a pod, would refuse the whole input.
func (s *Snapshot) dropUnstartable(jobs []*batchv1.Job, ending, classes map[string]bool) []*batchv1.Job {
	inEnding, classless := 0, 0
	kept := jobs[:0]
	for _, j := range jobs {
		switch c := j.Spec.Template.Spec.PriorityClassName; {
		case ending[j.Namespace]:
			inEnding++
		case c != "" && !classes[c]:
			classless++
		default:
			kept = append(kept, j)
		}
	}
	if inEnding > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("jobs: %d queued in namespaces being deleted, left out (their pods could not be created)", inEnding))
	}
	if classless > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("jobs: %d queued whose pods name a PriorityClass that no longer exists, left out (the API server would refuse their pods)", classless))
	}
	return kept
}

// keepPriority does for a native PodGroup or CompositePodGroup (any version) what is done
// for pods: a group whose PriorityClass was deleted after the API server gave it its
// priority keeps that priority without the class's name, which the simulator's admission,
// like the API server's, would refuse. A group that has no priority (made before its API
// server set one) takes the default one instead of being refused. phalanx's own groups
// keep the name, which the simulator admits as their CRD does. Its preemptionPolicy,
// which came from the class too, goes back to the default. It reports whether it changed
// the group.
func keepPriority(obj runtime.Object, classes map[string]bool) bool {
	spec := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	class := spec.FieldByName("PriorityClassName")
	if !class.IsValid() || class.String() == "" || classes[class.String()] {
		return false
	}
	class.SetString("")
	if policy := spec.FieldByName("PreemptionPolicy"); policy.IsValid() {
		policy.Set(reflect.Zero(policy.Type()))
	}
	return true
}

func byName[T runtime.Object](objs []T) {
	key := func(o T) (string, string) {
		m, _ := apimeta.Accessor(o)
		return m.GetNamespace(), m.GetName()
	}
	slices.SortFunc(objs, func(a, b T) int {
		ans, an := key(a)
		bns, bn := key(b)
		return cmp.Or(cmp.Compare(ans, bns), cmp.Compare(an, bn))
	})
}

func firstError(steps ...func() error) error {
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// list lists one kind page by page, passing each object to add; a kind the server does
// not serve is noted and skipped.
func list[T any, L runtime.Object](r *reader, resource string, fn func(context.Context, metav1.ListOptions) (L, error), add func(*T)) error {
	return listWith(r, resource, metav1.ListOptions{}, fn, add)
}

func listWith[T any, L runtime.Object](r *reader, resource string, opts metav1.ListOptions, fn func(context.Context, metav1.ListOptions) (L, error), add func(*T)) error {
	start := time.Now()
	p := pager.New(pager.SimplePageFunc(func(o metav1.ListOptions) (runtime.Object, error) { return fn(r.ctx, o) }))
	p.PageSize = r.opts.PageSize
	n := 0
	err := p.EachListItem(r.ctx, opts, func(obj runtime.Object) error {
		add(any(obj).(*T))
		n++
		if n%10000 == 0 {
			r.progress("%s: %d...", resource, n)
		}
		return nil
	})
	switch {
	case apierrors.IsNotFound(err):
		r.snap.Notes = append(r.snap.Notes, resource+": not served by the API server, left out")
		r.progress("%s: not served", resource)
		return nil
	case apierrors.IsForbidden(err):
		return fmt.Errorf("listing %s: %w (phalanx snapshot needs the ClusterRole of config/snapshot)", resource, err)
	case err != nil:
		return fmt.Errorf("listing %s: %w", resource, err)
	}
	r.progress("%s: %d in %.1fs", resource, n, time.Since(start).Seconds())
	return nil
}

func (r *reader) progress(format string, args ...any) {
	if r.opts.Progress != nil {
		fmt.Fprintf(r.opts.Progress, "snapshot: "+format+"\n", args...)
	}
}
