package kube

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/driver/kube/dispatch"
)

// errOutcomeUnknown marks a binding whose outcome could not be found out before the
// client shut down.
var errOutcomeUnknown = fmt.Errorf("binding %w", dispatch.ErrOutcomeUnknown)

// BindPod binds the pod through pods/binding. The binding carries the pod's UID, so a
// pod deleted and created again under the same name is not bound in its place. A
// binding queued behind others drops the pod's queued PodScheduled=False report, which
// it makes moot.
//
// When the call fails in a way that does not say whether the server bound the pod (a
// timeout or a broken connection after the request was sent, a conflict that may be our
// own earlier attempt), the pod is read back until the server answers: bound to node is
// a success. Still pending does not yet mean the binding failed: a request that timed
// out on the client may still be on its way to etcd, and land after the read. So the
// binding is sent again (up to bindAttempts in all): should the first land meanwhile,
// the second meets a conflict, and the read-back that follows finds the pod bound. The
// scheduler never reports a bound pod as failed, nor binds it elsewhere.
func (c *Client) BindPod(ctx context.Context, pod *v1.Pod, node string) error {
	binding := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}
	cl := &dispatch.Call{Class: dispatch.Bind, Priority: priorityOf(pod), Object: objectOf(pod), Drops: []string{reportKey(pod)}}
	return c.calls.Do(ctx, cl, func(callCtx context.Context) error {
		var err error
		for attempt := 1; ; attempt++ {
			err = c.core.CoreV1().Pods(pod.Namespace).Bind(callCtx, binding, metav1.CreateOptions{})
			if err == nil || certainFailure(err) {
				return err
			}
			var pending bool
			if pending, err = c.resolveBinding(ctx, pod, node, err); !pending || attempt == bindAttempts {
				return err
			}
			c.logger.V(2).Info("Binding outcome was unknown and the pod is still pending; binding again", "pod", klog.KObj(pod), "attempt", attempt+1)
			if callCtx.Err() != nil {
				// The call's own deadline is spent: the next attempt gets a fresh one.
				var cancel context.CancelFunc
				callCtx, cancel = context.WithTimeout(ctx, c.calls.Timeout())
				defer cancel()
			}
		}
	})
}

// bindAttempts bounds how many times a binding whose outcome stayed unknown, and whose
// pod was then found still pending, is sent.
const bindAttempts = 3

// certainFailure reports whether a binding error means the server did not bind the pod:
// it refused the request before acting on it.
func certainFailure(err error) bool {
	return apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) ||
		apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsMethodNotSupported(err) || apierrors.IsGone(err)
}

// resolveBinding finds out what the server made of a binding that failed with err: it
// reads the pod (each read with its own deadline, retried with backoff while the server
// does not answer, until ctx or the client ends). pending says the pod was found not
// bound: the binding may yet land, or have failed.
func (c *Client) resolveBinding(ctx context.Context, pod *v1.Pod, node string, err error) (pending bool, _ error) {
	backoff := wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 5 * time.Second}
	var outcome error
	found := "unknown"
	defer func() { c.resolved.WithLabelValues(found).Inc() }()
	ctx, cancel := c.calls.UntilStopped(ctx)
	defer cancel()
	poll := wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		getCtx, cancel := context.WithTimeout(ctx, c.calls.Timeout())
		defer cancel()
		cur, getErr := c.core.CoreV1().Pods(pod.Namespace).Get(getCtx, pod.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(getErr) || (getErr == nil && pod.UID != "" && cur.UID != pod.UID):
			found, outcome = "gone", apierrors.NewNotFound(v1.Resource("pods"), pod.Name)
		case getErr != nil:
			c.logger.V(2).Info("Binding outcome unknown; reading the pod again", "pod", klog.KObj(pod), "err", err, "readErr", getErr)
			return false, nil
		case cur.Spec.NodeName == node:
			c.logger.V(2).Info("Binding succeeded despite the error", "pod", klog.KObj(pod), "node", node, "err", err)
			found, outcome = "bound", nil
		case cur.Spec.NodeName == "":
			found, outcome = "not-bound", err
		default:
			found, outcome = "elsewhere", fmt.Errorf("pod %s/%s is bound to node %s: %w", pod.Namespace, pod.Name, cur.Spec.NodeName, err)
		}
		return true, nil
	})
	if poll != nil {
		return false, fmt.Errorf("%w: %v", errOutcomeUnknown, err)
	}
	return found == "not-bound", outcome
}

func priorityOf(pod *v1.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// objectOf names a pod for the dispatcher's per-object order.
func objectOf(pod *v1.Pod) string {
	if pod.UID != "" {
		return string(pod.UID)
	}
	return pod.Namespace + "/" + pod.Name
}

// reportKey is the key of a pod's PodScheduled condition writes: a newer one replaces a
// queued older one.
func reportKey(pod *v1.Pod) string { return "PodScheduled/" + objectOf(pod) }
