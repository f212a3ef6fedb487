package pki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// EnsureServingCert returns the apiserver's serving certificate and key files
// in <dataDir>/pki, issuing the certificate if it is missing, expiring, not
// signed by this CA, or lacks one of the wanted names.
//
// The certificate always names the apiserver the ways clients reach it:
// 127.0.0.1, ::1, localhost, kubernetes, kubernetes.default,
// kubernetes.default.svc, kubernetes.default.svc.cluster.local, the host's
// name and its non-loopback addresses. hosts adds more names or IP addresses;
// pass the first IP of the service CIDR here (see [FirstIP]), which is the
// address of the "kubernetes" Service.
//
// A reissued certificate keeps the names of the previous one, so two
// apiservers started with different extra names on one data dir converge on a
// certificate valid for both. The key is kept, so a process that reads the
// pair while another reissues still gets a matching key and certificate.
func (ca *CA) EnsureServingCert(dataDir string, hosts []string) (certFile, keyFile string, err error) {
	dir := Dir(dataDir)
	certFile = filepath.Join(dir, APIServerCertFile)
	keyFile = filepath.Join(dir, APIServerKeyFile)

	key, err := ensureKey(keyFile)
	if err != nil {
		return "", "", fmt.Errorf("apiserver key: %w", err)
	}

	want := newSANs(append(defaultServingHosts(), hosts...))
	cert, _, err := readCert(certFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", "", err
	case ca.stillGood(cert, x509.ExtKeyUsageServerAuth) && samePublicKey(cert, key) && want.coveredBy(cert):
		return certFile, keyFile, nil
	case ca.stillGood(cert, x509.ExtKeyUsageServerAuth):
		want.add(cert) // keep the names somebody else asked for
	}

	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    want.dns,
		IPAddresses: want.ips(),
	}
	certPEM, err := ca.sign(template, key.Public())
	if err != nil {
		return "", "", fmt.Errorf("apiserver certificate: %w", err)
	}
	if err := writeFileAtomic(certFile, certPEM, 0o644); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

// IssueClientCert issues a client certificate for user in groups, with a new
// key. The apiserver's x509 authenticator reads the user name from the
// subject's CommonName and the groups from its Organization fields, so
// IssueClientCert("kubernetes-admin", []string{"system:masters"}) is a
// cluster administrator. Nothing is written to disk.
func (ca *CA) IssueClientCert(user string, groups []string) (certPEM, keyPEM []byte, err error) {
	if user == "" {
		return nil, nil, errors.New("client certificate needs a user name")
	}
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: slices.Clone(groups)},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	certPEM, err = ca.sign(template, key.Public())
	if err != nil {
		return nil, nil, fmt.Errorf("client certificate for %q: %w", user, err)
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

// stillGood reports whether cert was signed by this CA for usage and is not
// about to expire.
func (ca *CA) stillGood(cert *x509.Certificate, usage x509.ExtKeyUsage) bool {
	if time.Until(cert.NotAfter) < renewBefore {
		return false
	}
	_, err := cert.Verify(x509.VerifyOptions{Roots: ca.CertPool(), KeyUsages: []x509.ExtKeyUsage{usage}})
	return err == nil
}

// FirstIP returns the first usable address of a CIDR: for the service CIDR
// 10.96.0.0/12 that is 10.96.0.1, the ClusterIP of the "kubernetes" Service.
func FirstIP(cidr string) (netip.Addr, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return netip.Addr{}, err
	}
	first := prefix.Masked().Addr().Next()
	if !first.IsValid() || !prefix.Contains(first) {
		return netip.Addr{}, fmt.Errorf("CIDR %s has no usable address", cidr)
	}
	return first, nil
}

// defaultServingHosts lists the names every apiserver certificate carries.
func defaultServingHosts() []string {
	hosts := []string{
		"127.0.0.1", "::1", "localhost",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local",
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		hosts = append(hosts, name)
	}
	addrs, _ := net.InterfaceAddrs() // no interfaces is not an error worth failing on
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip := ipnet.IP
		// Link-local IPv6 addresses need a zone to be dialled; nobody uses them to reach an apiserver.
		if ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() {
			continue
		}
		hosts = append(hosts, ip.String())
	}
	return hosts
}

// sans is a set of subject alternative names, IPs kept apart from DNS names.
type sans struct {
	dns   []string
	ipSet []netip.Addr
}

func newSANs(hosts []string) *sans {
	s := &sans{}
	for _, h := range hosts {
		s.addHost(h)
	}
	return s
}

func (s *sans) addHost(h string) {
	h = strings.TrimSpace(h)
	if h == "" {
		return
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		ip = ip.Unmap()
		if !slices.Contains(s.ipSet, ip) {
			s.ipSet = append(s.ipSet, ip)
		}
		return
	}
	h = strings.ToLower(h)
	if !slices.Contains(s.dns, h) {
		s.dns = append(s.dns, h)
	}
}

// add merges the names of an existing certificate into s.
func (s *sans) add(cert *x509.Certificate) {
	for _, name := range cert.DNSNames {
		s.addHost(name)
	}
	for _, ip := range cert.IPAddresses {
		s.addHost(ip.String())
	}
}

// coveredBy reports whether cert carries every name in s.
func (s *sans) coveredBy(cert *x509.Certificate) bool {
	have := newSANs(nil)
	have.add(cert)
	for _, name := range s.dns {
		if !slices.Contains(have.dns, name) {
			return false
		}
	}
	for _, ip := range s.ipSet {
		if !slices.Contains(have.ipSet, ip) {
			return false
		}
	}
	return true
}

func (s *sans) ips() []net.IP {
	ips := make([]net.IP, len(s.ipSet))
	for i, ip := range s.ipSet {
		ips[i] = net.IP(ip.AsSlice())
	}
	return ips
}
