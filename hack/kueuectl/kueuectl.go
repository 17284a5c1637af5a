// Package kueuectl starts Kueue v0.17.0 (hack/cluster/kueue, built into the e2e cache by
// hack/lib/e2e-cluster.sh) on a control plane, for the e2e tests (test/e2e/e2eutil) and
// the cluster benchmark (hack/bench-cluster): its CRDs and webhook configurations from
// its module, its webhooks on loopback with a certificate from a CA made here, its
// manager managing batch/v1 Jobs in the namespaces carrying a label. Kueue never enters
// phalanx's module: its objects are unstructured, its binary and CRDs come from its own
// module. Every function returns its errors; the e2e helpers turn them into t.Fatal.
package kueuectl

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// Version is the Kueue hack/cluster/kueue builds.
const Version = "v0.17.0"

// Kueue's defaults kept: its namespace, and the webhook Service and Secret names its
// internal certificate management derives the certificate's DNS name from, and its
// webhook configurations' names.
const (
	Namespace     = "kueue-system"
	WebhookSvc    = "kueue-webhook-service"
	WebhookSecret = "kueue-webhook-server-cert"
	Mutating      = "kueue-mutating-webhook-configuration"
	Validating    = "kueue-validating-webhook-configuration"
)

// GroupVersion is the API version used (v1beta2, Kueue's storage version).
var GroupVersion = schema.GroupVersion{Group: "kueue.x-k8s.io", Version: "v1beta2"}

// The CRDs Kueue serves v1beta1 of through its conversion webhook.
var conversionCRDs = []string{"localqueues", "clusterqueues", "workloads", "cohorts", "multikueueclusters"}

// Options say what to start and how.
type Options struct {
	// Bin is the Kueue manager binary.
	Bin string
	// ModuleDir is sigs.k8s.io/kueue in the Go module cache (its CRDs and webhook
	// manifests are read from there).
	ModuleDir string
	// Kubeconfig is the manager's (an admin's).
	Kubeconfig string
	// Dir is where a kueue-* directory is made for its configuration, certificates and log.
	Dir string
	// NamespaceLabel marks the namespaces whose Jobs Kueue manages and its Job webhooks see.
	NamespaceLabel string
	// FieldManager applies the CRDs.
	FieldManager string
}

// Kueue is a running Kueue manager.
type Kueue struct {
	// Log is its output.
	Log string
	// Health is its /healthz and /readyz listener.
	Health string
	// Webhook is the base URL of its webhooks.
	Webhook string

	cmd  *exec.Cmd
	done chan struct{}
}

// Start installs Kueue's CRDs and webhook configurations and starts its manager. Its
// webhooks serve on a free loopback port with a certificate for 127.0.0.1 from a CA made
// here, and the webhook configurations and the CRDs' conversion webhooks name that URL
// and CA; Kueue's internal certificate management keeps them (it finds the CA and
// certificate valid in its Secret). Start returns once /readyz answers. On an error after
// the manager started, the manager is stopped and returned with the error (for its Log).
// The caller stops it (Stop) and deletes its webhook configurations (DeleteWebhooks),
// also when Start fails.
func Start(ctx context.Context, client kubernetes.Interface, dyn dynamic.Interface, o Options) (*Kueue, error) {
	if o.Bin == "" || o.ModuleDir == "" {
		return nil, fmt.Errorf("kueue: a binary and a module directory are required")
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	webhookPort, healthPort := ports[0], ports[1]
	dir, err := os.MkdirTemp(o.Dir, "kueue-")
	if err != nil {
		return nil, err
	}
	certDir := filepath.Join(dir, "certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, err
	}
	pki, err := Certificates()
	if err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{"tls.crt": pki.Cert, "tls.key": pki.Key} {
		if err := os.WriteFile(filepath.Join(certDir, name), data, 0o600); err != nil {
			return nil, err
		}
	}

	// Kueue's namespace and the Secret its certificate management reads.
	_, err = client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create namespace %s: %w", Namespace, err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: WebhookSecret},
		Data:       map[string][]byte{"ca.crt": pki.CACert, "ca.key": pki.CAKey, "tls.crt": pki.Cert, "tls.key": pki.Key},
	}
	if _, err := client.CoreV1().Secrets(Namespace).Create(ctx, secret, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		if _, err := client.CoreV1().Secrets(Namespace).Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("update Secret %s: %w", secret.Name, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("create Secret %s: %w", secret.Name, err)
	}

	base := "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(webhookPort))
	if err := ApplyCRDs(ctx, dyn, o.ModuleDir, base, pki.CACert, o.FieldManager); err != nil {
		return nil, err
	}
	if err := ApplyWebhooks(ctx, client, o.ModuleDir, base, pki.CACert, o.NamespaceLabel); err != nil {
		return nil, err
	}

	k := &Kueue{
		Log:     filepath.Join(dir, "kueue.log"),
		Health:  net.JoinHostPort("127.0.0.1", strconv.Itoa(healthPort)),
		Webhook: base,
		done:    make(chan struct{}),
	}
	config := fmt.Sprintf(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: %s
health:
  healthProbeBindAddress: %s
metrics:
  bindAddress: "0"
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: true
  webhookServiceName: %s
  webhookSecretName: %s
clientConnection:
  qps: 100
  burst: 200
managedJobsNamespaceSelector:
  matchLabels:
    %s: "true"
integrations:
  frameworks:
  - batch/job
`, Namespace, k.Health, webhookPort, certDir, WebhookSvc, WebhookSecret, o.NamespaceLabel)
	configPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(k.Log)
	if err != nil {
		return nil, err
	}
	// VisibilityOnDemand off: its API server would need an APIService and the
	// delegated authentication a cluster's kube-system has, and nothing here reads it.
	k.cmd = exec.Command(o.Bin, "--config="+configPath, "--kubeconfig="+o.Kubeconfig,
		"--feature-gates=VisibilityOnDemand=false", "--zap-log-level=2")
	k.cmd.Stdout, k.cmd.Stderr = logf, logf
	if err := k.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", o.Bin, err)
	}
	go func() {
		_ = k.cmd.Wait()
		logf.Close()
		close(k.done)
	}()
	if err := k.waitReady(ctx); err != nil {
		k.Stop()
		return k, err
	}
	return k, nil
}

// Pid is the manager's process id.
func (k *Kueue) Pid() int { return k.cmd.Process.Pid }

// waitReady waits for /readyz: the certificates are in place and the webhook server
// has started.
func (k *Kueue) waitReady(ctx context.Context) error {
	err := poll(ctx, 2*time.Minute, func(ctx context.Context) (bool, error) {
		if k.Exited() {
			return false, fmt.Errorf("kueue exited (log %s)", k.Log)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+k.Health+"/readyz", nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for kueue /readyz: %w", err)
	}
	return nil
}

// Stop ends the manager (SIGTERM, then SIGKILL after 30 s) and waits for it to exit.
func (k *Kueue) Stop() {
	if k.Exited() {
		return
	}
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.done:
	case <-time.After(30 * time.Second):
		_ = k.cmd.Process.Kill()
		<-k.done
	}
}

// Exited tells whether the manager has exited.
func (k *Kueue) Exited() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

// DeleteWebhooks deletes Kueue's webhook configurations (once the manager is stopped, so
// that nothing waits for a Kueue that is gone); configurations already gone are no error.
func DeleteWebhooks(ctx context.Context, client kubernetes.Interface) error {
	var errs []error
	if err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, Mutating, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete %s: %w", Mutating, err))
	}
	if err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, Validating, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete %s: %w", Validating, err))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%v", errs)
	}
	return nil
}

// ApplyCRDs server-side applies config/components/crd/bases of Kueue's module, with the
// conversion webhook its kustomization patches in (webhook_in_*.yaml) pointed at base
// and ca, and waits for each to be Established.
func ApplyCRDs(ctx context.Context, dyn dynamic.Interface, moduleDir, base string, ca []byte, fieldManager string) error {
	files, err := filepath.Glob(filepath.Join(moduleDir, "config", "components", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("kueue's CRDs in %s: %v (%d files)", moduleDir, err, len(files))
	}
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
		for _, conv := range conversionCRDs {
			if plural == conv {
				u.Object["spec"].(map[string]any)["conversion"] = map[string]any{
					"strategy": "Webhook",
					"webhook": map[string]any{
						"conversionReviewVersions": []any{"v1"},
						"clientConfig":             map[string]any{"url": base + "/convert", "caBundle": base64.StdEncoding.EncodeToString(ca)},
					},
				}
			}
		}
		if _, err := crds.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
			return fmt.Errorf("apply CRD %s: %w", u.GetName(), err)
		}
		names = append(names, u.GetName())
	}
	for _, name := range names {
		err := poll(ctx, time.Minute, func(ctx context.Context) (bool, error) {
			u, err := crds.Get(ctx, name, metav1.GetOptions{})
			return err == nil && ConditionTrue(u, "Established"), nil
		})
		if err != nil {
			return fmt.Errorf("waiting for CRD %s Established: %w", name, err)
		}
	}
	return nil
}

// WebhookWanted tells whether the webhook of path is installed: those of the integration
// configured (batch/v1 Jobs) and of Kueue's own kinds. The others' paths are not served
// with their integrations off, and the API server would refuse every pod, Deployment...
// through them.
func WebhookWanted(path string) bool {
	return strings.Contains(path, "-batch-v1-job") || strings.Contains(path, "-kueue-x-k8s-io-")
}

// jobWebhook tells whether the webhook of path sees Jobs (and is limited to the
// namespaces labelled).
func jobWebhook(path string) bool { return strings.Contains(path, "-batch-v1-job") }

// ApplyWebhooks creates Kueue's webhook configurations (config/components/webhook/
// manifests.yaml, replacing any there) with the webhooks WebhookWanted keeps, each one's
// service replaced by base+path and ca, and the Job webhooks limited to the namespaces
// labelled namespaceLabel.
func ApplyWebhooks(ctx context.Context, client kubernetes.Interface, moduleDir, base string, ca []byte, namespaceLabel string) error {
	data, err := os.ReadFile(filepath.Join(moduleDir, "config", "components", "webhook", "manifests.yaml"))
	if err != nil {
		return err
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{namespaceLabel: "true"}}
	// fix points a wanted webhook at base and tells whether it is kept.
	fix := func(cc *admissionregistrationv1.WebhookClientConfig, ns **metav1.LabelSelector) bool {
		if cc.Service == nil || cc.Service.Path == nil || !WebhookWanted(*cc.Service.Path) {
			return false
		}
		if jobWebhook(*cc.Service.Path) {
			*ns = selector
		}
		url := base + *cc.Service.Path
		*cc = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca}
		return true
	}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var head metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return err
		}
		switch head.Kind {
		case "MutatingWebhookConfiguration":
			in := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, in); err != nil {
				return fmt.Errorf("kueue's MutatingWebhookConfiguration: %w", err)
			}
			out := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: Mutating}}
			for _, wh := range in.Webhooks {
				if fix(&wh.ClientConfig, &wh.NamespaceSelector) {
					out.Webhooks = append(out.Webhooks, wh)
				}
			}
			api := client.AdmissionregistrationV1().MutatingWebhookConfigurations()
			_ = api.Delete(ctx, out.Name, metav1.DeleteOptions{})
			if _, err := api.Create(ctx, out, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create %s: %w", out.Name, err)
			}
		case "ValidatingWebhookConfiguration":
			in := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, in); err != nil {
				return fmt.Errorf("kueue's ValidatingWebhookConfiguration: %w", err)
			}
			out := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: Validating}}
			for _, wh := range in.Webhooks {
				if fix(&wh.ClientConfig, &wh.NamespaceSelector) {
					out.Webhooks = append(out.Webhooks, wh)
				}
			}
			api := client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
			_ = api.Delete(ctx, out.Name, metav1.DeleteOptions{})
			if _, err := api.Create(ctx, out, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create %s: %w", out.Name, err)
			}
		}
	}
	return nil
}

// Condition is status condition typ of u, or nil.
func Condition(u *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// ConditionTrue tells whether u has status condition typ True.
func ConditionTrue(u *unstructured.Unstructured, typ string) bool {
	c := Condition(u, typ)
	return c != nil && c["status"] == "True"
}

// freePorts finds n ports free on loopback, each listened on until all are found.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// poll calls cond every 200 ms until it is true or fails, or timeout passes.
func poll(ctx context.Context, timeout time.Duration, cond func(context.Context) (bool, error)) error {
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, cond)
	if err != nil && wait.Interrupted(err) {
		return fmt.Errorf("not after %v", timeout)
	}
	return err
}
