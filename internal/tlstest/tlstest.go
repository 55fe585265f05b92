// Package tlstest makes the certificates of TLS tests at run time: a certificate
// authority no system trusts, a server certificate for loopback and a client
// certificate, both signed by it, with their PEM files in the test's temporary
// directory. Nothing is committed and nothing leaves the machine.
//
// It is test support: a normal package so that the tests of other packages can
// import it.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// PKI is one test's certificates.
type PKI struct {
	// CAFile is the authority's certificate, the file a client trusts.
	CAFile string
	// CertFile and KeyFile are the client certificate and its key.
	CertFile, KeyFile string

	pool   *x509.CertPool
	server tls.Certificate
}

// New makes a fresh authority and its two certificates.
func New(t testing.TB) *PKI {
	t.Helper()
	dir := t.TempDir()
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "omnik test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER := sign(t, caTmpl, caTmpl, caKey, caKey)
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	p := &PKI{pool: x509.NewCertPool(), CAFile: filepath.Join(dir, "ca.pem"),
		CertFile: filepath.Join(dir, "client.pem"), KeyFile: filepath.Join(dir, "client-key.pem")}
	p.pool.AddCert(ca)
	writePEM(t, p.CAFile, "CERTIFICATE", caDER)

	serverKey := newKey(t)
	serverDER := sign(t, leaf(2, "127.0.0.1", x509.ExtKeyUsageServerAuth), ca, serverKey, caKey)
	p.server = tls.Certificate{Certificate: [][]byte{serverDER}, PrivateKey: serverKey}

	clientKey := newKey(t)
	writePEM(t, p.CertFile, "CERTIFICATE", sign(t, leaf(3, "omnik test client", x509.ExtKeyUsageClientAuth), ca, clientKey, caKey))
	keyDER, err := x509.MarshalPKCS8PrivateKey(clientKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, p.KeyFile, "PRIVATE KEY", keyDER)
	return p
}

// ServerConfig is the server side: its certificate and, with requireClient, mutual TLS
// that refuses a client without a certificate this authority signed.
func (p *PKI) ServerConfig(requireClient bool) *tls.Config {
	c := &tls.Config{Certificates: []tls.Certificate{p.server}}
	if requireClient {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, p.pool
		// Under TLS 1.3 the server refuses a certificate after the client's handshake is
		// over, and its alert races its close: the client may see a reset instead (which
		// docs/cli.md says). Under 1.2 the refusal is part of the handshake, so the tests
		// see the reason every time.
		c.MaxVersion = tls.VersionTLS12
	}
	return c
}

// Serve serves h over TLS on loopback until the test ends.
func (p *PKI) Serve(t testing.TB, h http.Handler, requireClient bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = p.ServerConfig(requireClient)
	// The refused handshakes the tests make are expected: not worth a log line each.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func leaf(serial int64, name string, usage x509.ExtKeyUsage) *x509.Certificate {
	c := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	if ip := net.ParseIP(name); ip != nil {
		c.IPAddresses, c.DNSNames = []net.IP{ip}, []string{"localhost"}
	}
	return c
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func sign(t testing.TB, tmpl, parent *x509.Certificate, key, parentKey *ecdsa.PrivateKey) []byte {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
