//go:build e2e

package e2eutil

// Kueue v0.17.0 (hack/cluster/kueue) on the control plane, for the tests that run it
// beside phalanx (test/e2e/kueue_test.go). Kueue never enters phalanx's module: its
// objects are unstructured here, its binary and its CRDs come from its own module.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// KueueVersion is the Kueue hack/cluster/kueue builds.
const KueueVersion = "v0.17.0"

// Kueue's defaults the e2e setup keeps: its namespace, the webhook Service and Secret
// names its internal certificate management derives the certificate's DNS name and the
// webhook configurations' names from.
const (
	KueueNamespace     = "kueue-system"
	kueueWebhookSvc    = "kueue-webhook-service"
	kueueWebhookSecret = "kueue-webhook-server-cert"
	kueueMutating      = "kueue-mutating-webhook-configuration"
	kueueValidating    = "kueue-validating-webhook-configuration"
	kueueFieldManager  = "phalanx-e2e-kueue"
)

// KueueNamespaceLabel marks the namespaces whose Jobs Kueue manages (and whose Jobs its
// webhooks see): a namespace of another test, created while Kueue runs, is left alone.
const KueueNamespaceLabel = "e2e.phalanx.dev/kueue"

// KueueGroupVersion is the API version the tests use (v1beta2, Kueue's storage version).
var KueueGroupVersion = schema.GroupVersion{Group: "kueue.x-k8s.io", Version: "v1beta2"}

// The CRDs Kueue serves v1beta1 of through its conversion webhook.
var kueueConversionCRDs = []string{"localqueues", "clusterqueues", "workloads", "cohorts", "multikueueclusters"}

// Kueue is a running Kueue manager.
type Kueue struct {
	Log string
	// Health is its /healthz and /readyz listener.
	Health string

	cmd  *exec.Cmd
	done chan struct{}
}

var kueueModule struct {
	sync.Once
	dir string
	err error
}

// kueueModuleDir is where the Go module cache holds sigs.k8s.io/kueue at the version
// hack/cluster/kueue/go.mod pins (its CRDs and webhook manifests are read from there).
func kueueModuleDir(t testing.TB) string {
	t.Helper()
	kueueModule.Do(func() {
		cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kueue")
		cmd.Dir = filepath.Join(RepoRoot(t), "hack", "cluster", "kueue")
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.Output()
		if err != nil {
			kueueModule.err = fmt.Errorf("go list -m sigs.k8s.io/kueue in hack/cluster/kueue: %w", err)
			return
		}
		kueueModule.dir = strings.TrimSpace(string(out))
	})
	if kueueModule.err != nil {
		t.Fatal(kueueModule.err)
	}
	return kueueModule.dir
}

// StartKueue installs Kueue's CRDs and webhook configurations and starts its manager,
// with the admin kubeconfig, managing batch/v1 Jobs in the namespaces labelled
// KueueNamespaceLabel (CreateKueueNamespace). Its webhooks serve on a free loopback port
// with a certificate for 127.0.0.1 from a CA made here, and the webhook configurations
// and the CRDs' conversion webhooks name that URL and CA; Kueue's internal certificate
// management keeps them (it finds the CA and certificate valid in its Secret). It is
// stopped when the test ends, and its webhook configurations deleted, so that other
// tests' Jobs never wait for a Kueue that is gone.
func (c *Cluster) StartKueue(t testing.TB) *Kueue {
	t.Helper()
	ctx := Context(t)
	bin := filepath.Join(c.BinDir, "kueue")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: %v (hack/e2e.sh builds it from hack/cluster/kueue)", bin, err)
	}
	moduleDir := kueueModuleDir(t)
	webhookPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	healthPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(c.Dir, "kueue-")
	if err != nil {
		t.Fatal(err)
	}
	certDir := filepath.Join(dir, "certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		t.Fatal(err)
	}
	pki, err := kueueCertificates()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": pki.cert, "tls.key": pki.key} {
		if err := os.WriteFile(filepath.Join(certDir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// Kueue's namespace and the Secret its certificate management reads.
	_, err = c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: KueueNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", KueueNamespace, err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: KueueNamespace, Name: kueueWebhookSecret},
		Data:       map[string][]byte{"ca.crt": pki.caCert, "ca.key": pki.caKey, "tls.crt": pki.cert, "tls.key": pki.key},
	}
	if _, err := c.Client.CoreV1().Secrets(KueueNamespace).Create(ctx, secret, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		_, err = c.Client.CoreV1().Secrets(KueueNamespace).Update(ctx, secret, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update Secret %s: %v", secret.Name, err)
		}
	} else if err != nil {
		t.Fatalf("create Secret %s: %v", secret.Name, err)
	}

	base := "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(webhookPort))
	c.applyKueueCRDs(t, moduleDir, base, pki.caCert)
	c.applyKueueWebhooks(t, moduleDir, base, pki.caCert)

	k := &Kueue{
		Log:    filepath.Join(dir, "kueue.log"),
		Health: net.JoinHostPort("127.0.0.1", strconv.Itoa(healthPort)),
		done:   make(chan struct{}),
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
`, KueueNamespace, k.Health, webhookPort, certDir, kueueWebhookSvc, kueueWebhookSecret, KueueNamespaceLabel)
	configPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(k.Log)
	if err != nil {
		t.Fatal(err)
	}
	// VisibilityOnDemand off: its API server would need an APIService and the
	// delegated authentication a cluster's kube-system has, and nothing here reads it.
	k.cmd = exec.Command(bin, "--config="+configPath, "--kubeconfig="+os.Getenv(EnvKubeconfig),
		"--feature-gates=VisibilityOnDemand=false", "--zap-log-level=2")
	k.cmd.Stdout, k.cmd.Stderr = logf, logf
	if err := k.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("starting kueue: %v", err)
	}
	t.Logf("started kueue %s (pid %d), webhooks on %s, log %s", KueueVersion, k.cmd.Process.Pid, base, k.Log)
	go func() {
		_ = k.cmd.Wait()
		logf.Close()
		close(k.done)
	}()
	t.Cleanup(func() {
		k.stop()
		c.uninstallKueue(t)
		if t.Failed() {
			dumpFile(t, k.Log, 80)
		}
	})
	k.waitReady(t)
	return k
}

// waitReady waits for /readyz: the certificates are in place and the webhook server
// has started.
func (k *Kueue) waitReady(t testing.TB) {
	t.Helper()
	WaitFor(t, 2*time.Minute, "kueue /readyz", func(ctx context.Context) (bool, error) {
		select {
		case <-k.done:
			return false, fmt.Errorf("kueue exited")
		default:
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
}

func (k *Kueue) stop() {
	select {
	case <-k.done:
		return
	default:
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

// applyKueueCRDs server-side applies config/components/crd/bases of Kueue's module, with
// the conversion webhook its kustomization patches in (webhook_in_*.yaml) pointed at base.
func (c *Cluster) applyKueueCRDs(t testing.TB, moduleDir, base string, ca []byte) {
	t.Helper()
	ctx := Context(t)
	files, err := filepath.Glob(filepath.Join(moduleDir, "config", "components", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("Kueue's CRDs in %s: %v (%d files)", moduleDir, err, len(files))
	}
	crds := c.dynamic(t).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
		for _, conv := range kueueConversionCRDs {
			if plural != conv {
				continue
			}
			conversion := map[string]any{
				"strategy": "Webhook",
				"webhook": map[string]any{
					"conversionReviewVersions": []any{"v1"},
					"clientConfig": map[string]any{
						"url":      base + "/convert",
						"caBundle": ca, // []byte: base64 in JSON, as the API wants it
					},
				},
			}
			u.Object["spec"].(map[string]any)["conversion"] = toJSONValue(t, conversion)
		}
		if _, err := crds.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: kueueFieldManager, Force: true}); err != nil {
			t.Fatalf("apply CRD %s: %v", u.GetName(), err)
		}
		names = append(names, u.GetName())
	}
	for _, name := range names {
		WaitFor(t, time.Minute, "CRD "+name+" Established", func(ctx context.Context) (bool, error) {
			u, err := crds.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, cond := range conds {
				m, _ := cond.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
	}
}

// toJSONValue turns v into what a JSON round trip makes of it (unstructured content).
func toJSONValue(t testing.TB, v any) any {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// kueueWebhookWanted: the webhooks of the integration configured (batch/v1 Jobs) and of
// Kueue's own kinds. The others' paths are not served with their integrations off, and
// the API server would refuse every pod, Deployment... through them.
func kueueWebhookWanted(path string) bool {
	return strings.Contains(path, "-batch-v1-job") || strings.Contains(path, "-kueue-x-k8s-io-")
}

// applyKueueWebhooks creates Kueue's webhook configurations (config/components/webhook/
// manifests.yaml) with each webhook's service replaced by base+path and the CA, and the
// Job webhooks limited to the namespaces labelled KueueNamespaceLabel.
func (c *Cluster) applyKueueWebhooks(t testing.TB, moduleDir, base string, ca []byte) {
	t.Helper()
	ctx := Context(t)
	data, err := os.ReadFile(filepath.Join(moduleDir, "config", "components", "webhook", "manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{KueueNamespaceLabel: "true"}}
	clientConfig := func(cc admissionregistrationv1.WebhookClientConfig) admissionregistrationv1.WebhookClientConfig {
		url := base + *cc.Service.Path
		return admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca}
	}
	namespaced := func(path string) bool { return strings.Contains(path, "-batch-v1-job") }
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var head metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatal(err)
		}
		switch head.Kind {
		case "MutatingWebhookConfiguration":
			in := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, in); err != nil {
				t.Fatalf("Kueue's MutatingWebhookConfiguration: %v", err)
			}
			out := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: kueueMutating}}
			for _, wh := range in.Webhooks {
				if wh.ClientConfig.Service == nil || !kueueWebhookWanted(*wh.ClientConfig.Service.Path) {
					continue
				}
				if namespaced(*wh.ClientConfig.Service.Path) {
					wh.NamespaceSelector = selector
				}
				wh.ClientConfig = clientConfig(wh.ClientConfig)
				out.Webhooks = append(out.Webhooks, wh)
			}
			api := c.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
			_ = api.Delete(ctx, out.Name, metav1.DeleteOptions{})
			if _, err := api.Create(ctx, out, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create %s: %v", out.Name, err)
			}
		case "ValidatingWebhookConfiguration":
			in := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, in); err != nil {
				t.Fatalf("Kueue's ValidatingWebhookConfiguration: %v", err)
			}
			out := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: kueueValidating}}
			for _, wh := range in.Webhooks {
				if wh.ClientConfig.Service == nil || !kueueWebhookWanted(*wh.ClientConfig.Service.Path) {
					continue
				}
				if namespaced(*wh.ClientConfig.Service.Path) {
					wh.NamespaceSelector = selector
				}
				wh.ClientConfig = clientConfig(wh.ClientConfig)
				out.Webhooks = append(out.Webhooks, wh)
			}
			api := c.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
			_ = api.Delete(ctx, out.Name, metav1.DeleteOptions{})
			if _, err := api.Create(ctx, out, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create %s: %v", out.Name, err)
			}
		}
	}
}

// uninstallKueue, once the manager is stopped: its webhook configurations deleted, and
// the finalizers it would have removed taken off its objects, so that namespaces and
// cluster-scoped queues the test made go away without it. The CRDs stay (cluster-wide,
// unused by other tests; the next StartKueue applies them again).
func (c *Cluster) uninstallKueue(t testing.TB) {
	ctx := context.Background()
	if err := c.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, kueueMutating, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("delete %s: %v", kueueMutating, err)
	}
	if err := c.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, kueueValidating, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("delete %s: %v", kueueValidating, err)
	}
	dyn := c.dynamic(t)
	for _, resource := range []string{"workloads", "localqueues", "clusterqueues", "resourceflavors", "topologies", "cohorts", "workloadpriorityclasses"} {
		api := dyn.Resource(KueueGroupVersion.WithResource(resource))
		list, err := api.List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, item := range list.Items {
			if len(item.GetFinalizers()) == 0 {
				continue
			}
			patch := []byte(`{"metadata":{"finalizers":null}}`)
			_, err := api.Namespace(item.GetNamespace()).Patch(ctx, item.GetName(), types.MergePatchType, patch, metav1.PatchOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("remove the finalizers of %s %s/%s: %v", resource, item.GetNamespace(), item.GetName(), err)
			}
		}
	}
}

// CreateKueueNamespace is CreateNamespace labelled KueueNamespaceLabel.
func (c *Cluster) CreateKueueNamespace(t testing.TB) string {
	t.Helper()
	ns := c.CreateNamespace(t)
	patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, KueueNamespaceLabel))
	if _, err := c.Client.CoreV1().Namespaces().Patch(Context(t), ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("label namespace %s: %v", ns, err)
	}
	return ns
}

// Kueue objects, unstructured.

// KueueObject is a Kueue object of kind with the given spec, in KueueGroupVersion.
func KueueObject(kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(KueueGroupVersion.String())
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// KueueResource is the resource (plural) of a Kueue kind.
func KueueResource(kind string) schema.GroupVersionResource {
	plural := strings.ToLower(kind) + "s"
	switch kind {
	case "Topology":
		plural = "topologies"
	case "WorkloadPriorityClass":
		plural = "workloadpriorityclasses"
	}
	return KueueGroupVersion.WithResource(plural)
}

// CreateKueueObject creates obj (through Kueue's webhooks) and returns it as created.
// Objects left are deleted when Kueue stops (StartKueue's cleanup takes the finalizers
// off) and by their namespace's deletion.
func (c *Cluster) CreateKueueObject(t testing.TB, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	api := c.dynamic(t).Resource(KueueResource(obj.GetKind()))
	var created *unstructured.Unstructured
	var err error
	if ns := obj.GetNamespace(); ns != "" {
		created, err = api.Namespace(ns).Create(Context(t), obj, metav1.CreateOptions{})
	} else {
		created, err = api.Create(Context(t), obj, metav1.CreateOptions{})
		t.Cleanup(func() { _ = api.Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{}) })
	}
	if err != nil {
		t.Fatalf("create %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	return created
}

// GetKueueObject gets a Kueue object of kind.
func (c *Cluster) GetKueueObject(ctx context.Context, t testing.TB, kind, ns, name string) (*unstructured.Unstructured, error) {
	api := c.dynamic(t).Resource(KueueResource(kind))
	if ns != "" {
		return api.Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	}
	return api.Get(ctx, name, metav1.GetOptions{})
}

// PatchKueueObject applies a JSON patch to a Kueue object of kind.
func (c *Cluster) PatchKueueObject(ctx context.Context, t testing.TB, kind, ns, name string, patch []byte) (*unstructured.Unstructured, error) {
	api := c.dynamic(t).Resource(KueueResource(kind))
	if ns != "" {
		return api.Namespace(ns).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{})
	}
	return api.Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{})
}

// KueueWorkloads lists the Kueue Workloads of a namespace.
func (c *Cluster) KueueWorkloads(ctx context.Context, t testing.TB, ns string) ([]unstructured.Unstructured, error) {
	list, err := c.dynamic(t).Resource(KueueGroupVersion.WithResource("workloads")).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// KueueCondition is a status condition of a Kueue object, or nil.
func KueueCondition(u *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// kueuePKI is the CA and the webhook server's certificate, PEM.
type kueuePKI struct {
	caCert, caKey, cert, key []byte
}

// kueueCertificates makes a CA and a serving certificate that Kueue's certificate
// rotator (open-policy-agent/cert-controller) accepts as valid and keeps: a CA named
// kueue-ca (its DNS name, too, as the rotator verifies it so), RSA keys in PKCS #1, both
// valid well past its 90-day look-ahead, and the server's for the Service's DNS name it
// checks and for 127.0.0.1, the URL the API server calls.
func kueueCertificates() (*kueuePKI, error) {
	now := time.Now()
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kueue-ca", Organization: []string{"kueue"}},
		DNSNames:              []string{"kueue-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(2 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caParsed, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: kueueWebhookSvc + "." + KueueNamespace + ".svc"},
		DNSNames:     []string{kueueWebhookSvc + "." + KueueNamespace + ".svc"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caParsed, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	enc := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }
	return &kueuePKI{
		caCert: enc("CERTIFICATE", caDER),
		caKey:  enc("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(caKey)),
		cert:   enc("CERTIFICATE", der),
		key:    enc("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)),
	}, nil
}

func dumpFile(t testing.TB, path string, lines int) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	t.Logf("last %d lines of %s:\n%s", len(all), path, strings.Join(all, "\n"))
}

// KueueWorkloadHistory is every version of a namespace's Kueue Workloads in the order
// their watch delivered them (one resource, so in the API server's order).
type KueueWorkloadHistory struct {
	mu       sync.Mutex
	versions []*unstructured.Unstructured
}

// RecordKueueWorkloads starts recording the Kueue Workloads of ns until the test ends.
func (c *Cluster) RecordKueueWorkloads(t testing.TB, ns string) *KueueWorkloadHistory {
	t.Helper()
	h := &KueueWorkloadHistory{}
	api := c.dynamic(t).Resource(KueueGroupVersion.WithResource("workloads")).Namespace(ns)
	ctx := Context(t)
	list, err := api.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list Kueue Workloads: %v", err)
	}
	for i := range list.Items {
		h.versions = append(h.versions, &list.Items[i])
	}
	w, err := api.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watch Kueue Workloads: %v", err)
	}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type != "ERROR" && ev.Type != "BOOKMARK" {
				if ev.Type == "DELETED" {
					u = u.DeepCopy()
					u.SetAnnotations(map[string]string{"e2e.phalanx.dev/deleted": "true"})
				}
				h.mu.Lock()
				h.versions = append(h.versions, u)
				h.mu.Unlock()
			}
		}
	}()
	return h
}

// Versions returns the versions seen so far, in order.
func (h *KueueWorkloadHistory) Versions() []*unstructured.Unstructured {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*unstructured.Unstructured(nil), h.versions...)
}

// KueueConditionTrue tells whether u has condition typ with status True.
func KueueConditionTrue(u *unstructured.Unstructured, typ string) bool {
	c := KueueCondition(u, typ)
	return c != nil && c["status"] == "True"
}
