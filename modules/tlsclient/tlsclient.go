// Package tlsclient is the client side of TLS for every connection a run makes: the
// omni module's HTTP and websocket clients and omnik/http. Config builds the one
// *tls.Config they share from the run's settings (skip verification, an extra CA
// bundle, a client certificate), reading the files once; IsError tells a TLS failure
// from other connection failures, so a request that failed on a certificate says so.
package tlsclient

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
)

// Files name the PEM files of a client's TLS: options.omni.tls, or --tls-ca-file,
// --tls-cert and --tls-key. Relative paths are relative to the working directory.
type Files struct {
	// CAFile is a bundle of certificates trusted in addition to the system's roots.
	CAFile string `json:"caFile,omitempty"`
	// CertFile and KeyFile are the client certificate (its chain may follow it) and its
	// private key, for servers that require mutual TLS. One needs the other.
	CertFile string `json:"certFile,omitempty"`
	KeyFile  string `json:"keyFile,omitempty"`
}

// UnmarshalJSON refuses unknown keys: a misspelt certFile must not quietly mean no
// client certificate.
func (f *Files) UnmarshalJSON(b []byte) error {
	type plain Files // without this method
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("tls: want {caFile, certFile, keyFile}: %w", err)
	}
	*f = Files(p)
	return nil
}

// Over is f with the files of higher, which takes precedence, in their place: its CA
// file alone, its certificate and key as a pair (a key only ever goes with its own
// certificate).
func (f Files) Over(higher Files) Files {
	if higher.CAFile != "" {
		f.CAFile = higher.CAFile
	}
	if higher.CertFile != "" || higher.KeyFile != "" {
		f.CertFile, f.KeyFile = higher.CertFile, higher.KeyFile
	}
	return f
}

// Config is the TLS configuration of a client, or nil when nothing is set: Go's
// defaults then verify servers against the system's roots (SSL_CERT_FILE and
// SSL_CERT_DIR included). insecure accepts any server certificate; the files are still
// read and checked. An error names the file at fault and never shows key material.
func Config(insecure bool, f Files) (*tls.Config, error) {
	if !insecure && f == (Files{}) {
		return nil, nil
	}
	c := &tls.Config{InsecureSkipVerify: insecure}
	if f.CAFile != "" {
		pool, err := roots(f.CAFile)
		if err != nil {
			return nil, err
		}
		c.RootCAs = pool
	}
	if f.CertFile != "" || f.KeyFile != "" {
		cert, err := keyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// roots are the system's roots plus the certificates of file.
func roots(file string) (*x509.CertPool, error) {
	data, err := read("CA file", file)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil { // no system roots on this machine: the file's alone
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("TLS CA file %q holds no PEM certificate", file)
	}
	return pool, nil
}

func keyPair(certFile, keyFile string) (tls.Certificate, error) {
	switch {
	case keyFile == "":
		return tls.Certificate{}, fmt.Errorf("TLS client certificate %q has no key: set keyFile (--tls-key) too", certFile)
	case certFile == "":
		return tls.Certificate{}, fmt.Errorf("TLS client key %q has no certificate: set certFile (--tls-cert) too", keyFile)
	}
	certPEM, err := read("client certificate", certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := read("client key", keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	// Checked here so the message names the file at fault; crypto/tls's names neither.
	if !hasBlock(certPEM, func(t string) bool { return t == "CERTIFICATE" }) {
		return tls.Certificate{}, fmt.Errorf("TLS client certificate %q holds no PEM certificate", certFile)
	}
	if !hasBlock(keyPEM, func(t string) bool { return strings.HasSuffix(t, "PRIVATE KEY") }) {
		return tls.Certificate{}, fmt.Errorf("TLS client key %q holds no PEM private key", keyFile)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// crypto/tls's messages say what is wrong ("private key does not match public
		// key") without quoting the key.
		return tls.Certificate{}, fmt.Errorf("TLS client certificate %q with key %q: %w", certFile, keyFile, err)
	}
	return cert, nil
}

func read(what, file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is in the message already
	}
	if err != nil {
		return nil, fmt.Errorf("TLS %s %q: %w", what, file, err)
	}
	return data, nil
}

func hasBlock(data []byte, want func(typ string) bool) bool {
	for {
		var b *pem.Block
		if b, data = pem.Decode(data); b == nil {
			return false
		}
		if want(b.Type) {
			return true
		}
	}
}

// IsError reports a failure of TLS itself: a server certificate that does not verify
// (unknown authority, wrong host, expired), a peer that does not speak TLS (an https://
// URL of a plain HTTP server), or an alert
// from the server (it refused the client's certificate, or the lack of one).
func IsError(err error) bool {
	var verify *tls.CertificateVerificationError
	var header tls.RecordHeaderError
	var alert tls.AlertError
	var op *net.OpError
	switch {
	case errors.As(err, &verify), errors.As(err, &header), errors.As(err, &alert), errors.Is(err, http.ErrSchemeMismatch):
		return true
	case errors.As(err, &op) && op.Op == "remote error":
		// crypto/tls's wrapping of an alert the peer sent; the alert's type is unexported.
		return true
	}
	return false
}
