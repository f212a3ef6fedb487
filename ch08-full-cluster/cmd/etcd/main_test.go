package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"kubik/ch08-full-cluster/pki"
	"kubik/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// member is one etcd process of the test.
type member struct {
	name, ip           string
	clientURL, peerURL string
	cmd                *exec.Cmd
	done               chan struct{}
	logs               *testenv.SyncBuffer
	dataDir, pkiDir    string
}

// freePortOn is a port free on every one of ips.
func freePortOn(t *testing.T, ips ...string) int {
	t.Helper()
	for attempt := 0; attempt < 20; attempt++ {
		port := testenv.FreePort(t)
		ok := true
		for _, ip := range ips {
			ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			ln.Close()
		}
		if ok {
			return port
		}
	}
	t.Fatal("no port free on every address")
	return 0
}

// startMember runs one member with client and peer TLS from pkiDir.
func startMember(t *testing.T, bin string, m *member, initialCluster string) {
	t.Helper()
	p := func(f string) string { return filepath.Join(m.pkiDir, f) }
	args := []string{"--name", m.name, "--data-dir", m.dataDir,
		"--listen-client-urls", m.clientURL, "--advertise-client-urls", m.clientURL,
		"--listen-peer-urls", m.peerURL, "--initial-advertise-peer-urls", m.peerURL,
		"--initial-cluster", initialCluster, "--initial-cluster-state", "new", "--initial-cluster-token", "kubik-test",
		"--cert-file", p(pki.EtcdServer(m.name) + ".crt"), "--key-file", p(pki.EtcdServer(m.name) + ".key"),
		"--client-cert-auth", "--trusted-ca-file", p("ca.crt"),
		"--peer-cert-file", p(pki.EtcdPeer(m.name) + ".crt"), "--peer-key-file", p(pki.EtcdPeer(m.name) + ".key"),
		"--peer-client-cert-auth", "--peer-trusted-ca-file", p("ca.crt"),
		"--log-level", "warn"}
	m.logs = &testenv.SyncBuffer{}
	m.cmd = exec.Command(bin, args...)
	m.cmd.Stdout, m.cmd.Stderr = m.logs, m.logs
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m.done = make(chan struct{})
	go func() { m.cmd.Wait(); close(m.done) }()
	t.Cleanup(func() {
		m.stop(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("etcd %s:\n%s", m.name, m.logs.String())
		}
	})
}

func (m *member) stop(sig syscall.Signal) {
	select {
	case <-m.done:
		return
	default:
	}
	m.cmd.Process.Signal(sig)
	select {
	case <-m.done:
	case <-time.After(30 * time.Second):
		m.cmd.Process.Kill()
		<-m.done
	}
}

// client talks TLS to endpoints with the healthcheck client's certificate.
func client(t *testing.T, pkiDir string, endpoints ...string) *clientv3.Client {
	t.Helper()
	p := func(f string) string { return filepath.Join(pkiDir, f) }
	tlsConfig, err := transport.TLSInfo{TrustedCAFile: p("ca.crt"),
		CertFile: p(pki.EtcdHealthcheckClient + ".crt"), KeyFile: p(pki.EtcdHealthcheckClient + ".key")}.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, TLS: tlsConfig, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestThreeMembersTLS runs a three-member cluster on loopback with TLS on
// both ports, as the PKI lays it out: every member answers over TLS, a
// write through one is read through the others, a client without a
// certificate is refused, and with the leader killed the other two elect
// a new one and take writes.
func TestThreeMembersTLS(t *testing.T) {
	bin := testenv.Build(t, "kubik/ch08-full-cluster/cmd/etcd")
	dir := t.TempDir()
	pkiDir := filepath.Join(dir, "pki")
	ips := []string{"127.0.0.11", "127.0.0.12", "127.0.0.13"}
	clientPort, peerPort := freePortOn(t, ips...), 0
	for peerPort == 0 || peerPort == clientPort {
		peerPort = freePortOn(t, ips...)
	}
	var topo pki.Topology
	var members []*member
	var initial []string
	for i, ip := range ips {
		m := &member{name: fmt.Sprintf("cp-%d", i+1), ip: ip, pkiDir: pkiDir, dataDir: filepath.Join(dir, fmt.Sprintf("etcd-%d", i+1)),
			clientURL: "https://" + net.JoinHostPort(ip, strconv.Itoa(clientPort)),
			peerURL:   "https://" + net.JoinHostPort(ip, strconv.Itoa(peerPort))}
		members = append(members, m)
		initial = append(initial, m.name+"="+m.peerURL)
		topo.ControlPlane = append(topo.ControlPlane, pki.Machine{Name: m.name, IP: netip.MustParseAddr(ip)})
	}
	topo.LoadBalancer = ips[0]
	if err := pki.Write(pkiDir, topo); err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		startMember(t, bin, m, strings.Join(initial, ","))
	}

	var urls []string
	for _, m := range members {
		urls = append(urls, m.clientURL)
	}
	ctx := context.Background()
	c := client(t, pkiDir, urls...)
	testenv.Eventually(t, "three members answer over TLS", 2*time.Minute, func() (string, bool) {
		var leaders []uint64
		for _, u := range urls {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			st, err := c.Status(cctx, u)
			cancel()
			if err != nil {
				return err.Error(), false
			}
			leaders = append(leaders, st.Leader)
		}
		return fmt.Sprint(leaders), leaders[0] != 0 && leaders[0] == leaders[1] && leaders[1] == leaders[2]
	})
	if ml, err := c.MemberList(ctx); err != nil || len(ml.Members) != 3 {
		t.Fatalf("member list: %v %v", ml, err)
	}

	// A write through the first is read through the third.
	if _, err := client(t, pkiDir, urls[0]).Put(ctx, "/kubik/test", "one"); err != nil {
		t.Fatal(err)
	}
	if r, err := client(t, pkiDir, urls[2]).Get(ctx, "/kubik/test"); err != nil || len(r.Kvs) != 1 || string(r.Kvs[0].Value) != "one" {
		t.Fatalf("read through member 3: %v %v", r, err)
	}

	// No client certificate: the TLS handshake is refused.
	cp, _ := transport.TLSInfo{TrustedCAFile: filepath.Join(pkiDir, "ca.crt")}.ClientConfig()
	conn, err := tls.Dial("tcp", strings.TrimPrefix(urls[0], "https://"), cp)
	if err == nil {
		// TLS 1.3 reports a missing client certificate on the first read.
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
	}
	if err == nil {
		t.Fatal("a client without a certificate was served")
	}

	// Kill the leader: the two others elect a new one and take writes.
	st, err := c.Status(ctx, urls[0])
	if err != nil {
		t.Fatal(err)
	}
	var leader *member
	var rest []string
	for _, m := range members {
		s, err := c.Status(ctx, m.clientURL)
		if err == nil && s.Header.MemberId == st.Leader {
			leader = m
		} else {
			rest = append(rest, m.clientURL)
		}
	}
	if leader == nil {
		t.Fatal("no member is the leader")
	}
	leader.stop(syscall.SIGKILL)
	survivors := client(t, pkiDir, rest...)
	testenv.Eventually(t, "a new leader among the two left", 2*time.Minute, func() (string, bool) {
		s, err := survivors.Status(ctx, rest[0])
		if err != nil {
			return err.Error(), false
		}
		return fmt.Sprintf("leader %x (old %x)", s.Leader, st.Leader), s.Leader != 0 && s.Leader != st.Leader
	})
	testenv.Eventually(t, "a write with one member down", time.Minute, func() (string, bool) {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := survivors.Put(wctx, "/kubik/test", "two")
		return fmt.Sprint(err), err == nil
	})
}
