package kueuectl

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCertificates(t *testing.T) {
	pki, err := Certificates()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(pki.Cert, pki.Key); err != nil {
		t.Fatalf("server key pair: %v", err)
	}
	if _, err := tls.X509KeyPair(pki.CACert, pki.CAKey); err != nil {
		t.Fatalf("CA key pair: %v", err)
	}
	for name, key := range map[string][]byte{"CA": pki.CAKey, "server": pki.Key} {
		if b, _ := pem.Decode(key); b == nil || b.Type != "RSA PRIVATE KEY" {
			t.Errorf("%s key is not PKCS #1 PEM", name)
		}
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pki.CACert) {
		t.Fatal("CA certificate not PEM")
	}
	caBlock, _ := pem.Decode(pki.CACert)
	ca, err := x509.ParseCertificate(caBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.IsCA || ca.Subject.CommonName != "kueue-ca" {
		t.Errorf("CA: IsCA %v, CN %q", ca.IsCA, ca.Subject.CommonName)
	}
	block, _ := pem.Decode(pki.Cert)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	lookAhead := time.Now().Add(91 * 24 * time.Hour)
	if ca.NotAfter.Before(lookAhead) || cert.NotAfter.Before(lookAhead) {
		t.Errorf("valid until %v (CA) and %v (server), want past 90 days", ca.NotAfter, cert.NotAfter)
	}
	for _, name := range []string{"kueue-webhook-service.kueue-system.svc", "127.0.0.1"} {
		opts := x509.VerifyOptions{Roots: roots, DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if _, err := cert.Verify(opts); err != nil {
			t.Errorf("server certificate for %s: %v", name, err)
		}
	}
	if len(cert.IPAddresses) != 1 || !cert.IPAddresses[0].Equal(net.ParseIP("127.0.0.1")) {
		t.Errorf("IP addresses %v", cert.IPAddresses)
	}
}

func TestWebhookWanted(t *testing.T) {
	for path, want := range map[string]bool{
		"/mutate-batch-v1-job":                        true,
		"/validate-batch-v1-job":                      true,
		"/mutate-kueue-x-k8s-io-v1beta2-clusterqueue": true,
		"/validate-kueue-x-k8s-io-v1beta2-localqueue": true,
		"/mutate--v1-pod":                             false,
		"/mutate-apps-v1-deployment":                  false,
		"/validate-jobset-x-k8s-io-v1alpha2-jobset":   false,
		"/mutate-kubeflow-org-v1-pytorchjob":          false,
	} {
		if got := WebhookWanted(path); got != want {
			t.Errorf("WebhookWanted(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestConditionTrue(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "Established", "status": "True"},
		map[string]any{"type": "Active", "status": "False"},
	}}}}
	if !ConditionTrue(u, "Established") || ConditionTrue(u, "Active") || ConditionTrue(u, "Missing") {
		t.Error("ConditionTrue wrong")
	}
	if Condition(u, "Missing") != nil {
		t.Error("Condition of a missing type not nil")
	}
}
