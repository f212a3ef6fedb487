package main

// The node the proxiers run on: a network namespace that looks like a
// node (lo, an eth0 with the node's address: one end of a veth pair whose
// other end stays inside too), connected to nothing. The apiserver is
// reached through a relay this program listens with inside the namespace;
// the proxier's metrics are read by dialing from inside it.

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// node is one such namespace.
type node struct {
	name  string
	relay net.Listener
	wg    sync.WaitGroup
}

func newNode(name string) (*node, error) {
	n := &node{name: name}
	steps := [][]string{
		{"ip", "netns", "add", name},
		{"ip", "-n", name, "link", "add", "eth0", "type", "veth", "peer", "name", "eth0-peer"},
		{"ip", "-n", name, "addr", "add", nodeIP + "/24", "dev", "eth0"},
		{"ip", "-n", name, "link", "set", "lo", "up"},
		{"ip", "-n", name, "link", "set", "eth0", "up"},
		{"ip", "-n", name, "link", "set", "eth0-peer", "up"},
	}
	for _, s := range steps {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			n.remove()
			return nil, fmt.Errorf("%s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	return n, nil
}

// remove stops the relay and deletes the namespace.
func (n *node) remove() {
	if n.relay != nil {
		n.relay.Close()
		n.wg.Wait()
	}
	exec.Command("ip", "netns", "del", n.name).Run()
}

// inNamespace runs f on a thread that has entered the namespace; the thread
// is never reused (no UnlockOSThread), so what f opens stays inside.
func (n *node) inNamespace(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		h, err := os.Open("/run/netns/" + n.name)
		if err != nil {
			errc <- err
			return
		}
		defer h.Close()
		if err := unix.Setns(int(h.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- err
			return
		}
		errc <- f()
	}()
	return <-errc
}

// startRelay listens on 127.0.0.1 inside the namespace and relays every
// connection to target in this program's namespace. It returns the address
// to give the proxier.
func (n *node) startRelay(target string) (string, error) {
	if err := n.inNamespace(func() (err error) {
		n.relay, err = net.Listen("tcp", "127.0.0.1:0")
		return err
	}); err != nil {
		return "", err
	}
	n.wg.Go(func() {
		for {
			in, err := n.relay.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				out, err := net.DialTimeout("tcp", target, 10*time.Second)
				if err != nil {
					return
				}
				defer out.Close()
				go func() { io.Copy(out, in); out.(*net.TCPConn).CloseWrite() }()
				io.Copy(in, out)
			}()
		}
	})
	return n.relay.Addr().String(), nil
}

// httpClient dials from inside the namespace (the proxier's metrics).
func (n *node) httpClient() *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		err := n.inNamespace(func() (err error) {
			c, err = (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
}

// exec runs a command (iptables-save, nft) in the namespace.
func (n *node) exec(args ...string) (string, error) {
	out, err := exec.Command("ip", append([]string{"netns", "exec", n.name}, args...)...).Output()
	if err != nil {
		return "", fmt.Errorf("%s: %v", strings.Join(args, " "), err)
	}
	return string(out), nil
}
