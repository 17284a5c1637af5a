package main

// Kueue v0.17.0 (hack/cluster/kueue, built into the e2e cache by hack/lib/e2e-cluster.sh)
// on the control plane under test, for the kueue workload. The start-up follows the e2e
// tests' (test/e2e/e2eutil/kueue.go, which a product build never sees): its CRDs and
// webhook configurations from its module, its webhooks on loopback with a certificate
// from a CA made here, its manager managing batch/v1 Jobs in the namespaces labelled
// kueueNamespaceLabel. Its objects are unstructured: Kueue never enters this module.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
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
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// Kueue's defaults kept: its namespace, and the webhook Service and Secret its internal
// certificate management derives the certificate's DNS name from.
const (
	kueueNamespace      = "kueue-system"
	kueueWebhookSvc     = "kueue-webhook-service"
	kueueWebhookSecret  = "kueue-webhook-server-cert"
	kueueMutating       = "kueue-mutating-webhook-configuration"
	kueueValidating     = "kueue-validating-webhook-configuration"
	kueueNamespaceLabel = "bench.phalanx.dev/kueue"
)

// kueueGroupVersion is the API version used (v1beta2, Kueue's storage version).
var kueueGroupVersion = schema.GroupVersion{Group: "kueue.x-k8s.io", Version: "v1beta2"}

// The CRDs Kueue serves v1beta1 of through its conversion webhook.
var kueueConversionCRDs = []string{"localqueues", "clusterqueues", "workloads", "cohorts", "multikueueclusters"}

// kueue is a running Kueue manager.
type kueue struct {
	c      *cluster
	cmd    *exec.Cmd
	done   chan struct{}
	health string
	log    string
}

// startKueue installs Kueue's CRDs (from moduleDir, sigs.k8s.io/kueue in the module
// cache) and webhook configurations, starts bin with kubeconfig, and waits for /readyz.
func startKueue(ctx context.Context, c *cluster, bin, moduleDir, kubeconfig, dir string) (*kueue, error) {
	if bin == "" || moduleDir == "" {
		return nil, fmt.Errorf("--kueue and --kueue-module are required for the kueue workload")
	}
	webhookPort, err := freePort()
	if err != nil {
		return nil, err
	}
	healthPort, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err = os.MkdirTemp(dir, "kueue-")
	if err != nil {
		return nil, err
	}
	certDir := filepath.Join(dir, "certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, err
	}
	pki, err := kueueCertificates()
	if err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{"tls.crt": pki.cert, "tls.key": pki.key} {
		if err := os.WriteFile(filepath.Join(certDir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	if err := c.createNamespace(ctx, kueueNamespace); err != nil {
		return nil, err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: kueueNamespace, Name: kueueWebhookSecret},
		Data:       map[string][]byte{"ca.crt": pki.caCert, "ca.key": pki.caKey, "tls.crt": pki.cert, "tls.key": pki.key},
	}
	if _, err := c.client.CoreV1().Secrets(kueueNamespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	base := "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(webhookPort))
	if err := c.applyKueueCRDs(ctx, moduleDir, base, pki.caCert); err != nil {
		return nil, err
	}
	if err := c.applyKueueWebhooks(ctx, moduleDir, base, pki.caCert); err != nil {
		return nil, err
	}
	k := &kueue{c: c, done: make(chan struct{}), health: net.JoinHostPort("127.0.0.1", strconv.Itoa(healthPort)), log: filepath.Join(dir, "kueue.log")}
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
`, kueueNamespace, k.health, webhookPort, certDir, kueueWebhookSvc, kueueWebhookSecret, kueueNamespaceLabel)
	configPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(k.log)
	if err != nil {
		return nil, err
	}
	// VisibilityOnDemand off: its API server would need an APIService.
	k.cmd = exec.Command(bin, "--config="+configPath, "--kubeconfig="+kubeconfig, "--feature-gates=VisibilityOnDemand=false", "--zap-log-level=2")
	k.cmd.Stdout, k.cmd.Stderr = logf, logf
	if err := k.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() {
		_ = k.cmd.Wait()
		logf.Close()
		close(k.done)
	}()
	err = poll(ctx, 2*time.Minute, func(ctx context.Context) (bool, error) {
		select {
		case <-k.done:
			return false, fmt.Errorf("kueue exited (log %s)", k.log)
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+k.health+"/readyz", nil)
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
		k.stop()
		return nil, err
	}
	return k, nil
}

// stop ends the manager and deletes its webhook configurations, so that nothing waits
// for a Kueue that is gone.
func (k *kueue) stop() {
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.done:
	case <-time.After(30 * time.Second):
		_ = k.cmd.Process.Kill()
		<-k.done
	}
	ctx := context.Background()
	_ = k.c.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, kueueMutating, metav1.DeleteOptions{})
	_ = k.c.client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, kueueValidating, metav1.DeleteOptions{})
}

// applyKueueCRDs server-side applies config/components/crd/bases of Kueue's module, with
// the conversion webhook its kustomization patches in pointed at base.
func (c *cluster) applyKueueCRDs(ctx context.Context, moduleDir, base string, ca []byte) error {
	files, err := filepath.Glob(filepath.Join(moduleDir, "config", "components", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("kueue's CRDs in %s: %v (%d files)", moduleDir, err, len(files))
	}
	crds := c.dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
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
		for _, conv := range kueueConversionCRDs {
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
		if _, err := crds.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "bench-cluster", Force: true}); err != nil {
			return fmt.Errorf("apply CRD %s: %w", u.GetName(), err)
		}
		names = append(names, u.GetName())
	}
	return poll(ctx, time.Minute, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			u, err := crds.Get(ctx, name, metav1.GetOptions{})
			if err != nil || !conditionTrue(u, "Established") {
				return false, nil
			}
		}
		return true, nil
	})
}

// conditionTrue tells whether u has status condition typ True.
func conditionTrue(u *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, cond := range conds {
		if m, ok := cond.(map[string]any); ok && m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

// kueueWebhookWanted: the webhooks of batch/v1 Jobs and of Kueue's own kinds (the
// others' paths are not served with their integrations off).
func kueueWebhookWanted(path string) bool {
	return strings.Contains(path, "-batch-v1-job") || strings.Contains(path, "-kueue-x-k8s-io-")
}

// applyKueueWebhooks creates Kueue's webhook configurations with each webhook's service
// replaced by base+path and the CA, and the Job webhooks limited to the namespaces
// labelled kueueNamespaceLabel.
func (c *cluster) applyKueueWebhooks(ctx context.Context, moduleDir, base string, ca []byte) error {
	data, err := os.ReadFile(filepath.Join(moduleDir, "config", "components", "webhook", "manifests.yaml"))
	if err != nil {
		return err
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{kueueNamespaceLabel: "true"}}
	fix := func(wh *admissionregistrationv1.WebhookClientConfig, ns **metav1.LabelSelector) bool {
		if wh.Service == nil || wh.Service.Path == nil || !kueueWebhookWanted(*wh.Service.Path) {
			return false
		}
		if strings.Contains(*wh.Service.Path, "-batch-v1-job") {
			*ns = selector
		}
		url := base + *wh.Service.Path
		*wh = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca}
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
			out := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: kueueMutating}}
			for _, wh := range in.Webhooks {
				if fix(&wh.ClientConfig, &wh.NamespaceSelector) {
					out.Webhooks = append(out.Webhooks, wh)
				}
			}
			if _, err := c.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, out, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create %s: %w", out.Name, err)
			}
		case "ValidatingWebhookConfiguration":
			in := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, in); err != nil {
				return fmt.Errorf("kueue's ValidatingWebhookConfiguration: %w", err)
			}
			out := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: kueueValidating}}
			for _, wh := range in.Webhooks {
				if fix(&wh.ClientConfig, &wh.NamespaceSelector) {
					out.Webhooks = append(out.Webhooks, wh)
				}
			}
			if _, err := c.client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, out, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create %s: %w", out.Name, err)
			}
		}
	}
	return nil
}

// kueuePKI is the CA and the webhook server's certificate, PEM.
type kueuePKI struct {
	caCert, caKey, cert, key []byte
}

// kueueCertificates makes a CA and a serving certificate Kueue's certificate rotator
// accepts as valid and keeps (as test/e2e/e2eutil/kueue.go explains): a CA named
// kueue-ca, RSA keys in PKCS #1, both valid well past its 90-day look-ahead, the server's
// for the Service's DNS name and for 127.0.0.1.
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
	svc := kueueWebhookSvc + "." + kueueNamespace + ".svc"
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: svc},
		DNSNames:     []string{svc},
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

// kueueWorkload is the workload of Jobs admitted by Kueue.
const kueueWorkload = "kueue"

// kueueOptions are the kueue workload's binary, module and sizes.
type kueueOptions struct {
	bin, moduleDir string
	jobs, admit    int
	run            time.Duration
}

// runKueue: Kueue runs, with a ClusterQueue whose CPU quota admits b.k.admit Jobs at a
// time and a LocalQueue; the scheduler runs; b.k.jobs Indexed Jobs of gangSize pods are
// created at once, sent to the LocalQueue (Kueue's webhook suspends them, Kueue admits
// them as quota allows, kwok completes each pod b.k.run after it runs, which frees the
// quota for the next). Timed from the first creation to the last pod seen Running.
// phalanx's Jobs are gangs (a PodGroup of minCount gangSize each); kube-scheduler's are
// the same Jobs without gang semantics (no spec.scheduling, no PodGroup).
func runKueue(ctx context.Context, b *bench, r *result) error {
	ns := "bench-kueue"
	k, err := startKueue(ctx, b.c, b.k.bin, b.k.moduleDir, b.l.kubeconfig, b.l.dir)
	if err != nil {
		return err
	}
	defer k.stop()
	if err := b.c.createNamespace(ctx, ns); err != nil {
		return err
	}
	patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, kueueNamespaceLabel))
	if _, err := b.c.client.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return err
	}
	defer func() {
		ctx := context.WithoutCancel(ctx)
		bg := metav1.DeletePropagationBackground
		_ = b.c.client.BatchV1().Jobs(ns).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, metav1.ListOptions{})
		_ = b.c.cleanUp(ctx, ns, []schema.GroupVersionResource{phalanxPodGroups})
	}()
	size := b.s.gangSize
	quota := b.k.admit * size * 4 // 4 CPUs a pod
	create := func(kind, namespace, name string, spec map[string]any) error {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": kueueGroupVersion.String(), "kind": kind, "spec": spec}}
		u.SetName(name)
		u.SetNamespace(namespace)
		api := b.c.dynamic.Resource(kueueGroupVersion.WithResource(strings.ToLower(kind) + "s"))
		var err error
		if namespace == "" {
			_, err = api.Create(ctx, u, metav1.CreateOptions{})
		} else {
			_, err = api.Namespace(namespace).Create(ctx, u, metav1.CreateOptions{})
		}
		if err != nil {
			return fmt.Errorf("create %s %s: %w", kind, name, err)
		}
		return nil
	}
	if err := create("ResourceFlavor", "", "bench", map[string]any{}); err != nil {
		return err
	}
	err = create("ClusterQueue", "", "bench", map[string]any{
		"namespaceSelector": map[string]any{},
		"resourceGroups": []any{map[string]any{
			"coveredResources": []any{"cpu", "memory"},
			"flavors": []any{map[string]any{"name": "bench", "resources": []any{
				map[string]any{"name": "cpu", "nominalQuota": strconv.Itoa(quota)},
				map[string]any{"name": "memory", "nominalQuota": "100Ti"},
			}}},
		}},
	})
	if err != nil {
		return err
	}
	if err := create("LocalQueue", ns, "bench", map[string]any{"clusterQueue": "bench"}); err != nil {
		return err
	}
	cqs := b.c.dynamic.Resource(kueueGroupVersion.WithResource("clusterqueues"))
	err = poll(ctx, time.Minute, func(ctx context.Context) (bool, error) {
		u, err := cqs.Get(ctx, "bench", metav1.GetOptions{})
		return err == nil && conditionTrue(u, "Active"), nil
	})
	if err != nil {
		return fmt.Errorf("ClusterQueue bench Active: %w", err)
	}
	r.Pods = b.k.jobs * size
	return b.measure(ctx, ns, r, true, func(*bindings) (time.Time, error) {
		start := time.Now()
		return start, parallel(ctx, b.k.jobs, createWorkers, func(ctx context.Context, i int) error {
			name := fmt.Sprintf("j-%03d", i)
			p := podSpec{name: name, namespace: ns, cpu: "4", measured: true}
			if b.l.kind != kindKubeScheduler {
				pg := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": phalanxPodGroups.GroupVersion().String(),
					"kind":       "PodGroup",
					"metadata":   map[string]any{"name": name, "namespace": ns},
					"spec":       map[string]any{"schedulingPolicy": map[string]any{"gang": map[string]any{"minCount": int64(size)}}},
				}}
				if _, err := b.c.dynamic.Resource(phalanxPodGroups).Namespace(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
					return fmt.Errorf("create PodGroup %s: %w", name, err)
				}
				p.podGroupLabel = name
			}
			pod := p.build()
			zero := int64(0)
			pod.Spec.RestartPolicy = corev1.RestartPolicyNever
			pod.Spec.TerminationGracePeriodSeconds = &zero
			pod.Annotations = map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": b.k.run.String()}
			n := int32(size)
			mode := batchv1.IndexedCompletion
			job := &batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "bench"}},
				Spec: batchv1.JobSpec{
					Parallelism: &n, Completions: &n, CompletionMode: &mode, BackoffLimit: new(int32),
					Template: corev1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec},
				},
			}
			job.Spec.Template.Name, job.Spec.Template.Namespace = "", ""
			if _, err := b.c.client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create Job %s: %w", name, err)
			}
			return nil
		})
	})
}
