package kueuectl

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"time"
)

// PKI is the CA and the webhook server's certificate, PEM.
type PKI struct {
	CACert, CAKey, Cert, Key []byte
}

// Certificates makes a CA and a serving certificate that Kueue's certificate rotator
// (open-policy-agent/cert-controller) accepts as valid and keeps: a CA named kueue-ca
// (its DNS name, too, as the rotator verifies it so), RSA keys in PKCS #1, both valid
// well past its 90-day look-ahead, and the server's for the Service's DNS name it checks
// and for 127.0.0.1, the URL the API server calls.
func Certificates() (*PKI, error) {
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
	svc := WebhookSvc + "." + Namespace + ".svc"
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
	return &PKI{
		CACert: enc("CERTIFICATE", caDER),
		CAKey:  enc("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(caKey)),
		Cert:   enc("CERTIFICATE", der),
		Key:    enc("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)),
	}, nil
}
