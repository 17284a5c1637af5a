package whatif

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/manifest"
)

// Admit takes the queued Jobs named (NAMESPACE/NAME, or NAME in default) out of the
// cluster and returns them as new objects, unsuspended: the question "if a queue such
// as Kueue admitted this Job now, where would it go and whom would it preempt". The
// cluster without them keeps them out of both runs' way (queued, they make no pods
// either way). A name that is no Job of the cluster, or a Job that is not queued
// (suspended and not finished: a snapshot keeps only those, and of them only those that
// could start), is an *manifest.InputError.
// The Job is asked about as it is: what an admission adds to its template (Kueue's
// ResourceFlavor node labels and tolerations, its topology scheduling gates) is not.
func Admit(cluster *manifest.Input, names []string) (rest, admitted *manifest.Input, err error) {
	want := map[string]bool{}
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = n
		if !strings.Contains(n, "/") {
			keys[i] = metav1.NamespaceDefault + "/" + n
		}
		if ns, name, _ := strings.Cut(keys[i], "/"); ns == "" || name == "" || strings.Contains(name, "/") {
			return nil, nil, &manifest.InputError{Where: "--admit", Msg: fmt.Sprintf("%q: want NAMESPACE/NAME or NAME of a queued Job", n)}
		}
		want[keys[i]] = true
	}
	found := map[string]bool{}
	admitted, rest = cluster.Split(func(o any) bool {
		j, ok := o.(*batchv1.Job)
		if !ok || !want[j.Namespace+"/"+j.Name] {
			return false
		}
		found[j.Namespace+"/"+j.Name] = true
		return true
	})
	for _, key := range keys {
		if !found[key] {
			return nil, nil, &manifest.InputError{Where: "--admit", Object: "Job " + key,
				Msg: "no such Job in the cluster (a snapshot keeps only the queued Jobs that could start: suspended, not finished, not being deleted, not in a namespace being deleted, not naming a deleted PriorityClass; its header's \"# left out\" lines count the last two kinds)"}
		}
	}
	for _, o := range admitted.Objects() {
		j := o.(*batchv1.Job)
		if j.Spec.Suspend == nil || !*j.Spec.Suspend {
			return nil, nil, &manifest.InputError{Where: "--admit", Object: "Job " + j.Namespace + "/" + j.Name,
				Msg: "not suspended: it is not waiting in a queue (ask about new objects with -f)"}
		}
		for _, c := range j.Status.Conditions {
			if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == "True" {
				return nil, nil, &manifest.InputError{Where: "--admit", Object: "Job " + j.Namespace + "/" + j.Name, Msg: "finished: nothing to admit"}
			}
		}
		no := false
		j.Spec.Suspend = &no
	}
	return rest, admitted, nil
}
