package snapshot

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStripKeepsImagesAndFeatures: what ImageLocality and NodeDeclaredFeatures read
// survives the snapshot: a node's images and declared features, a pod's images (image
// volumes too), host network, user namespace and restart rules.
func TestStripKeepsImagesAndFeatures(t *testing.T) {
	images := []v1.ContainerImage{{Names: []string{"app:v1", "app@sha256:1"}, SizeBytes: 5 << 30}}
	features := []string{"RestartAllContainersOnContainerExits"}
	n := node(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{
		Images: images, DeclaredFeatures: features,
		Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}})
	if !reflect.DeepEqual(n.Status.Images, images) || !reflect.DeepEqual(n.Status.DeclaredFeatures, features) || n.Status.Conditions != nil {
		t.Errorf("node status %+v", n.Status)
	}
	hostUsers := false
	never := v1.ContainerRestartPolicyNever
	rules := []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
	p := pod(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: v1.PodSpec{
		HostNetwork: true, HostUsers: &hostUsers,
		Containers: []v1.Container{{Name: "c", Image: "app:v1", RestartPolicy: &never, RestartPolicyRules: rules, Command: []string{"x"}}},
		Volumes:    []v1.Volume{{Name: "model", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "weights:v3", PullPolicy: v1.PullIfNotPresent}}}},
	}}, time.Now())
	s := p.Spec
	if !s.HostNetwork || s.HostUsers == nil || *s.HostUsers || !reflect.DeepEqual(s.Containers[0].RestartPolicyRules, rules) || s.Containers[0].Command != nil {
		t.Errorf("pod spec %+v", s)
	}
	if len(s.Volumes) != 1 || s.Volumes[0].Image == nil || s.Volumes[0].Image.Reference != "weights:v3" {
		t.Errorf("volumes %+v", s.Volumes)
	}
}
