package schedulerdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/dynamicresources"
)

// TestUpstreamTablesDRASteps follows DynamicResources' TestPlugin cases through the steps
// that write through the API server: PreBind (the claims' allocation, reservation and
// finalizer written, binding conditions waited for), PostFilter (a claim deallocated, an
// earlier attempt's claim deleted) and Unreserve (after Reserve failed, before PreBind,
// or after a failed binding). phalanx's plugin runs as upstream's loop runs kube-
// scheduler's (PreFilter, Filter on every node, Score where more than one node passes,
// Reserve on the best), with a ResourceClient over a fake clientset built as upstream's
// setup builds its own (the case's objects, upstream's createReactor, the case's failing
// reactors). After each step it must leave the claims upstream's test states (compared as
// upstream's verify compares them) and give the status it states, and, after Unreserve,
// hold pending the claims it states are in flight. The stated outcomes are compared with
// phalanx's directly: kube-scheduler's plugin passes its own test on them.
func TestUpstreamTablesDRASteps(t *testing.T) {
	ctx := t.Context()
	ph := NewPhalanx()
	steps := dynamicresources.StepsOf()
	var cases, notRun, ended, compared, listed int
	count := map[string]int{}
	for _, tc := range dynamicresources.Cases() {
		cases++
		if tc.NotRun != "" {
			notRun++
			continue
		}
		if why := stepsNotRun[tc.Name]; why != "" {
			notRun++
			continue
		}
		s := steps[tc.Name]
		ran, err := runSteps(ctx, ph, &tc, s)
		if err != nil {
			t.Errorf("%s: %v", tc.ID(), err)
			continue
		}
		if len(ran) == 0 {
			ended++ // Filter's error ended upstream's loop before these steps
			continue
		}
		compared++
		if StepDifferences[tc.ID()] != "" {
			listed++
		}
		for _, r := range ran {
			count[r]++
		}
	}
	for id, d := range StepDifferences {
		if !slices.ContainsFunc(Differences, func(x Difference) bool { return x.ID == d }) || stepReadings[d] == nil {
			t.Errorf("StepDifferences: %s names %q, no listed difference of the steps", id, d)
		}
		if !slices.ContainsFunc(dynamicresources.Cases(), func(c tables.Case) bool { return c.ID() == id }) {
			t.Errorf("StepDifferences names %q, which is no case of TestPlugin", id)
		}
	}
	for name := range stepsNotRun {
		if _, ok := steps[name]; !ok {
			t.Errorf("stepsNotRun names %q, which is no case of TestPlugin", name)
		}
	}
	line := fmt.Sprintf("cases %d, not run %d, ended by Filter's error %d, compared %d (PreBind %d, PostFilter %d, Unreserve %d), agreed %d, listed %d",
		cases, notRun, ended, compared, count["PreBind"], count["PostFilter"], count["Unreserve"], compared-listed, listed)
	t.Log("DynamicResources PreBind, PostFilter, Unreserve: " + line)
	fmt.Println("schedulerdiff upstream tables DynamicResources PreBind, PostFilter, Unreserve: " + line)
	if compared == 0 {
		t.Error("no case compared")
	}
}

// stepsNotRun are the cases run to Filter by TestUpstreamTables whose later steps are
// not run here: the reason, by case name.
var stepsNotRun = map[string]string{}

// stepRun is one case's fake API server and phalanx's plugin on it.
type stepRun struct {
	client kubernetes.Interface
	cache  interface {
		DRA() framework.DRA
	}
	clock *stepClock
	state *framework.CycleState
	// listed is the ID of the listed difference the case is read through ("": none);
	// differed: a step differed as stated.
	listed   string
	differed bool
	pod      *framework.PodInfo
	claims   []string // the case's claims, namespace/name
}

// runSteps runs phalanx's plugin through a case as upstream's loop runs kube-scheduler's
// and returns the steps it compared.
func runSteps(ctx context.Context, ph *Phalanx, tc *tables.Case, s *dynamicresources.Steps) ([]string, error) {
	r, ran, err := runStepsOf(ctx, ph, tc, s)
	if err == nil && r != nil && r.listed != "" && !r.differed {
		err = fmt.Errorf("listed as %s, but phalanx does as stated", r.listed)
	}
	return ran, err
}

func runStepsOf(ctx context.Context, ph *Phalanx, tc *tables.Case, s *dynamicresources.Steps) (*stepRun, []string, error) {
	c := normalized(tc)
	objs := slices.Clone(s.Objects)
	for _, cl := range c.Claims {
		cl = cl.DeepCopy()
		cl.ResourceVersion = "seeded"
		objs = append(objs, cl)
	}
	// The simple clientset, as upstream's test: its reactors expect its tracker.
	client := fake.NewSimpleClientset(objs...)
	client.PrependReactor("*", "*", dynamicresources.NewReactor(client.Tracker(), s.FailPatch))
	client.ReactionChain = append(slices.Clone(s.Reactors), client.ReactionChain...)

	args, err := phalanxArgs(tc.Args)
	if err != nil {
		return nil, nil, err
	}
	cc := newCache(c)
	clock := &stepClock{now: time.Now()}
	pl, err := ph.registry["DynamicResources"](args, &testutil.Handle{Cache: cc, Client: resourceClient{client}, Now: clock})
	if err != nil {
		return nil, nil, err
	}
	r := &stepRun{client: client, cache: cc, clock: clock, state: framework.NewCycleState(), pod: framework.NewPodInfo(c.Pod), listed: StepDifferences[tc.ID()]}
	for _, cl := range c.Claims {
		r.claims = append(r.claims, cl.Namespace+"/"+cl.Name)
	}

	_, preFilter := pl.(framework.PreFilterPlugin).PreFilter(ctx, r.state, r.pod)
	unschedulable := preFilter.IsRejected()
	var potential []*framework.NodeInfo
	if !unschedulable {
		for _, n := range cc.NodeInfos() {
			st := pl.(framework.FilterPlugin).Filter(ctx, r.state, r.pod, n)
			if st.Code() == framework.Error {
				return r, nil, nil // an error ends upstream's loop
			}
			if st.IsSuccess() {
				potential = append(potential, n)
			}
		}
		unschedulable = len(potential) == 0
	}
	if unschedulable || len(potential) == 0 {
		if err := r.prepare(ctx, s.PreparePostFilter); err != nil {
			return r, nil, err
		}
		before := r.list(ctx)
		_, st := pl.(framework.PostFilterPlugin).PostFilter(ctx, r.state, r.pod, nil)
		return r, []string{"PostFilter"}, r.verify(ctx, "PostFilter", s.PostFilter, before, st, false)
	}
	node := potential[0].Name
	if len(potential) > 1 {
		best := int64(-1)
		for _, n := range potential {
			score, st := pl.(framework.ScorePlugin).Score(ctx, r.state, r.pod, n)
			if !st.IsSuccess() {
				return r, nil, fmt.Errorf("phalanx's Score on %s: %v", n.Name, st)
			}
			if score > best {
				node, best = n.Name, score
			}
		}
	}
	if err := r.prepare(ctx, s.PrepareReserve); err != nil {
		return r, nil, err
	}
	if st := pl.(framework.ReservePlugin).Reserve(ctx, r.state, r.pod, node); !st.IsSuccess() {
		if err := r.prepare(ctx, s.PrepareUnreserve); err != nil {
			return r, nil, err
		}
		before := r.list(ctx)
		pl.(framework.ReservePlugin).Unreserve(ctx, r.state, r.pod, node)
		return r, []string{"Unreserve"}, r.verify(ctx, "Unreserve after Reserve failed", s.Unreserve, before, preFilter, true)
	}
	if want := s.UnreserveBeforePreBind; want != nil {
		before := r.list(ctx)
		pl.(framework.ReservePlugin).Unreserve(ctx, r.state, r.pod, node)
		return r, []string{"Unreserve"}, r.verify(ctx, "Unreserve before PreBind", *want, before, preFilter, true)
	}
	if err := r.prepare(ctx, s.PreparePreBind); err != nil {
		return r, nil, err
	}
	before := r.list(ctx)
	st := r.preBind(ctx, pl, tc, node)
	ran := []string{"PreBind"}
	if err := r.verify(ctx, "PreBind", s.PreBind, before, st, false); err != nil {
		return r, ran, err
	}
	if want := s.UnreserveAfterBindFailure; want != nil {
		before := r.list(ctx)
		pl.(framework.ReservePlugin).Unreserve(ctx, r.state, r.pod, node)
		ran = append(ran, "Unreserve")
		return r, ran, r.verify(ctx, "Unreserve after the binding failed", *want, before, preFilter, true)
	}
	return r, ran, nil
}

// preBind is phalanx's PreBind and, where the pod's devices have binding conditions,
// the wait that follows it (phalanx's binding cycle asks PreBindReady; kube-scheduler's
// PreBind polls within itself). Nothing changes the API server while upstream's PreBind
// polls, so a wait that does not end at once ends when bindingTimeout has passed: it is
// asked once more, the clock moved on by that time (a claim stamped earlier times out by
// its stamp first, as in upstream's poll).
func (r *stepRun) preBind(ctx context.Context, pl framework.Plugin, tc *tables.Case, node string) *framework.Status {
	st := pl.(framework.PreBindPlugin).PreBind(ctx, r.state, r.pod, node)
	if !st.IsSuccess() {
		return st
	}
	w, ok := pl.(framework.PreBindWaitPlugin)
	if !ok {
		return st
	}
	st = w.PreBindReady(ctx, r.state, r.pod, node, 0)
	if st.Code() != framework.Wait {
		return st
	}
	timeout := 600 * time.Second // kube-scheduler's default
	if a, ok := tc.Args.(*config.DynamicResourcesArgs); ok && a.BindingTimeout != nil {
		timeout = a.BindingTimeout.Duration
	}
	r.clock.now = r.clock.now.Add(timeout)
	return w.PreBindReady(ctx, r.state, r.pod, node, timeout)
}

// stepClock is phalanx's clock in a case: the time the case began, moved on by the wait
// for binding conditions.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }

// prepare makes a stated change of the API server's claims, as upstream's updateAPIServer.
func (r *stepRun) prepare(ctx context.Context, change func([]metav1.Object) []metav1.Object) error {
	if change == nil {
		return nil
	}
	before := r.list(ctx)
	after := change(before)
	for i, o := range after {
		if cmp.Equal(before[i], o) {
			continue
		}
		cl, ok := o.(*resourceapi.ResourceClaim)
		if !ok {
			return fmt.Errorf("a stated change of %T", o)
		}
		if _, err := r.client.ResourceV1().ResourceClaims(cl.Namespace).Update(ctx, cl, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("preparing the API server: %w", err)
		}
	}
	return nil
}

// list are the API server's claims, as upstream's listAll.
func (r *stepRun) list(ctx context.Context) []metav1.Object {
	claims, err := r.client.ResourceV1().ResourceClaims("").List(ctx, metav1.ListOptions{})
	if err != nil {
		panic(err) // the fake clientset lists what it holds
	}
	var out []metav1.Object
	for i := range claims.Items {
		out = append(out, &claims.Items[i])
	}
	dynamicresources.SortObjects(out)
	return out
}

// claimComparison is upstream's verify's comparison of claims: UIDs, resource versions,
// allocation times, device names and share IDs are not compared.
var claimComparison = []cmp.Option{
	cmpopts.IgnoreFields(metav1.ObjectMeta{}, "UID", "ResourceVersion"),
	cmp.Transformer("AllocationTimestamp", func(result resourceapi.AllocationResult) resourceapi.AllocationResult {
		if result.AllocationTimestamp != nil {
			result.AllocationTimestamp = new(metav1.Time)
		}
		return result
	}),
	cmpopts.IgnoreFields(resourceapi.DeviceRequestAllocationResult{}, "Device"),
	cmpopts.IgnoreFields(resourceapi.DeviceRequestAllocationResult{}, "ShareID"),
	cmpopts.EquateEmpty(),
}

// verify compares a step's outcome with the stated one: its status, the claims it leaves,
// and after Unreserve the claims pending. Unreserve returns no status: upstream's loop
// checks the stated one against PreFilter's there (its variable of that name), and so
// does this. A case listed in StepDifferences must differ as stated in some step and agree
// once the stated outcome is read through its difference (stepReadings).
func (r *stepRun) verify(ctx context.Context, step string, want dynamicresources.Step, before []metav1.Object, st *framework.Status, inFlight bool) error {
	problems := r.problems(ctx, want, before, st, inFlight, nil)
	if r.listed != "" && len(problems) > 0 {
		r.differed = true
		problems = r.problems(ctx, want, before, st, inFlight, stepReadings[r.listed])
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", step, strings.Join(problems, "; "))
	}
	return nil
}

// stepReading reads a stated outcome as a listed difference changes it: the status
// (nil: as stated) and the claims, from the claims before the step.
type stepReading struct {
	status func(want *fwk.Status, got *framework.Status) string
	claims func(pod *v1.Pod, before, want []metav1.Object) []metav1.Object
}

// stepReadings are the listed differences of the steps (docs/kube-scheduler-differences.md).
var stepReadings = map[string]*stepReading{
	// phalanx does not stamp a claim someone else allocated unstamped when it reserves it.
	"outside-allocation-unstamped": {claims: func(_ *v1.Pod, before, want []metav1.Object) []metav1.Object {
		unstamped := map[string]bool{}
		for _, o := range before {
			if a := o.(*resourceapi.ResourceClaim).Status.Allocation; a != nil && a.AllocationTimestamp == nil {
				unstamped[o.GetNamespace()+"/"+o.GetName()] = true
			}
		}
		return mapClaims(want, func(cl *resourceapi.ResourceClaim) {
			if unstamped[cl.Namespace+"/"+cl.Name] && cl.Status.Allocation != nil {
				cl.Status.Allocation.AllocationTimestamp = nil
			}
		})
	}},
	// phalanx deallocates a claim nobody else reserves as soon as the wait for its
	// binding conditions fails or times out.
	"binding-wait-deallocates": {claims: func(pod *v1.Pod, _, want []metav1.Object) []metav1.Object {
		return mapClaims(want, func(cl *resourceapi.ResourceClaim) {
			rf := cl.Status.ReservedFor
			if cl.Status.Allocation != nil && (len(rf) == 0 || len(rf) == 1 && rf[0].UID == pod.UID) {
				cl.Status.Allocation, cl.Status.ReservedFor, cl.Status.Devices = nil, nil, nil
			}
		})
	}},
	// phalanx's error texts are its own: the step fails, as stated.
	"error-texts": {status: func(want *fwk.Status, got *framework.Status) string {
		if !want.IsSuccess() && !got.IsSuccess() && got.Code() != framework.Skip {
			return ""
		}
		return compareStatus(want, got)
	}},
}

func mapClaims(objs []metav1.Object, fn func(*resourceapi.ResourceClaim)) []metav1.Object {
	out := make([]metav1.Object, 0, len(objs))
	for _, o := range objs {
		cl := o.(*resourceapi.ResourceClaim).DeepCopy()
		fn(cl)
		out = append(out, cl)
	}
	return out
}

// problems are the differences of a step's outcome from the stated one, read through a
// listed difference when one is given.
func (r *stepRun) problems(ctx context.Context, want dynamicresources.Step, before []metav1.Object, st *framework.Status, inFlight bool, reading *stepReading) []string {
	var problems []string
	status := compareStatus
	if reading != nil && reading.status != nil {
		status = reading.status
	}
	if msg := status(want.Status, st); msg != "" {
		problems = append(problems, msg)
	}
	wantClaims := want.Want(before)
	if reading != nil && reading.claims != nil {
		wantClaims = reading.claims(r.pod.Pod, before, wantClaims)
	}
	if diff := cmp.Diff(wantClaims, r.list(ctx), claimComparison...); diff != "" {
		problems = append(problems, "the claims differ (- stated, + phalanx):\n"+diff)
	}
	if inFlight {
		var got []string
		for _, key := range r.claims {
			if ci := r.cache.DRA().Claim(key); ci != nil && ci.Assumed != nil {
				got = append(got, key)
			}
		}
		if !slices.Equal(got, want.InFlight) {
			problems = append(problems, fmt.Sprintf("claims pending allocation: phalanx %v, stated %v", got, want.InFlight))
		}
	}
	return problems
}

// compareStatus compares a phalanx status with one upstream's test states ("": the same)
// as upstream's verify does: a failed status by its message only (the stated message must
// be part of phalanx's). Skip is success (the plugin has nothing to do).
func compareStatus(want *fwk.Status, got *framework.Status) string {
	ok := got.IsSuccess() || got.Code() == framework.Skip
	switch {
	case want.IsSuccess() && ok:
		return ""
	case want.IsSuccess():
		return fmt.Sprintf("status %v, stated success", got)
	case ok:
		return fmt.Sprintf("success, stated %v", want)
	case !strings.Contains(got.Message(), want.Message()):
		return fmt.Sprintf("message %q, stated %q", got.Message(), want.Message())
	}
	return ""
}

// resourceClient is phalanx's framework.ResourceClient over a clientset, as
// `phalanx run`'s (pkg/driver/kube) without its dispatcher.
type resourceClient struct{ c kubernetes.Interface }

var _ framework.ResourceClient = resourceClient{}

func (r resourceClient) GetResourceClaim(ctx context.Context, ns, name string) (*resourceapi.ResourceClaim, error) {
	return r.c.ResourceV1().ResourceClaims(ns).Get(ctx, name, metav1.GetOptions{})
}

func (r resourceClient) CreateResourceClaim(ctx context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return r.c.ResourceV1().ResourceClaims(cl.Namespace).Create(ctx, cl, metav1.CreateOptions{})
}

func (r resourceClient) UpdateResourceClaim(ctx context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return r.c.ResourceV1().ResourceClaims(cl.Namespace).Update(ctx, cl, metav1.UpdateOptions{})
}

func (r resourceClient) UpdateResourceClaimStatus(ctx context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return r.c.ResourceV1().ResourceClaims(cl.Namespace).UpdateStatus(ctx, cl, metav1.UpdateOptions{})
}

func (r resourceClient) DeleteClaim(ctx context.Context, ns, name string) error {
	err := r.c.ResourceV1().ResourceClaims(ns).Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (r resourceClient) GetResourceClaimTemplate(ctx context.Context, ns, name string) (*resourceapi.ResourceClaimTemplate, error) {
	return r.c.ResourceV1().ResourceClaimTemplates(ns).Get(ctx, name, metav1.GetOptions{})
}

func (r resourceClient) PatchPodExtendedResourceClaimStatus(ctx context.Context, pod *v1.Pod, st *v1.PodExtendedResourceClaimStatus) error {
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": pod.UID},
		"status":   map[string]any{"extendedResourceClaimStatus": st},
	})
	if err != nil {
		return err
	}
	_, err = r.c.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, body, metav1.PatchOptions{}, "status")
	return err
}

func (r resourceClient) GetPersistentVolume(ctx context.Context, name string) (*v1.PersistentVolume, error) {
	return r.c.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
}

func (r resourceClient) UpdatePersistentVolume(ctx context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	return r.c.CoreV1().PersistentVolumes().Update(ctx, pv, metav1.UpdateOptions{})
}

func (r resourceClient) GetPersistentVolumeClaim(ctx context.Context, ns, name string) (*v1.PersistentVolumeClaim, error) {
	return r.c.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
}

func (r resourceClient) UpdatePersistentVolumeClaim(ctx context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	return r.c.CoreV1().PersistentVolumeClaims(pvc.Namespace).Update(ctx, pvc, metav1.UpdateOptions{})
}

// TestUpstreamTablesDRAStepsCanFail alters the stated outcome of compared cases (three
// agreed, one listed), one step each, and expects each alteration to be caught.
func TestUpstreamTablesDRAStepsCanFail(t *testing.T) {
	ctx := t.Context()
	ph := NewPhalanx()
	unchanged := func(before []metav1.Object) []metav1.Object { return before }
	alter := map[string]func(s *dynamicresources.Steps){
		// PreBind writes the claim made for extended resources: stated as writing nothing.
		"extended-resource-name-with-resources": func(s *dynamicresources.Steps) { s.PreBind.Want = unchanged },
		// PostFilter deallocates: stated with another message.
		"wrong-topology": func(s *dynamicresources.Steps) {
			s.PostFilter.Status = fwk.NewStatus(fwk.Unschedulable, "not what PostFilter says")
		},
		// Unreserve before PreBind drops the allocation pending: stated as kept.
		"skip-bind": func(s *dynamicresources.Steps) {
			s.UnreserveBeforePreBind.InFlight = []string{"default/my-pod-my-resource"}
		},
		// Unreserve after the binding failed drops the pod's reservation: stated as kept.
		"bind-failure": func(s *dynamicresources.Steps) { s.UnreserveAfterBindFailure.Want = unchanged },
	}
	steps := dynamicresources.StepsOf()
	for _, tc := range dynamicresources.Cases() {
		fn := alter[tc.Name]
		if fn == nil {
			continue
		}
		delete(alter, tc.Name)
		s := *steps[tc.Name]
		if s.UnreserveBeforePreBind != nil {
			u := *s.UnreserveBeforePreBind
			s.UnreserveBeforePreBind = &u
		}
		if s.UnreserveAfterBindFailure != nil {
			u := *s.UnreserveAfterBindFailure
			s.UnreserveAfterBindFailure = &u
		}
		if _, err := runSteps(ctx, ph, &tc, &s); err != nil {
			t.Fatalf("%s as stated: %v", tc.Name, err)
		}
		fn(&s)
		if _, err := runSteps(ctx, ph, &tc, &s); err == nil {
			t.Errorf("%s: an altered outcome was not caught", tc.Name)
		}
	}
	for name := range alter {
		t.Errorf("no case %q", name)
	}
}
