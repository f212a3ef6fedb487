package main

import (
	"context"
	"errors"
	"fmt"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// --- processes --------------------------------------------------------------

// proc is a process this program started (the cluster, a controller
// manager); it is stopped by its
// PID only.

// --- the cluster ------------------------------------------------------------

// cluster is one fresh chapter 3 binary: the apiserver on an embedded etcd,
// our kube-scheduler and the hollow nodes, in one process; plus the
// kubeconfigs of the administrator and of system:kube-controller-manager
// (for the manager under test).
type cluster struct {
	*testenv.Proc
	url             string
	adminKubeconfig string
	kcmKubeconfig   string
}

// startCluster runs the ch03 binary with --hollow-nodes=nodes in dir/data
// and waits until every node is Ready and untainted (the binary's
// not-ready-taint stand-in removes node.kubernetes.io/not-ready).
func startCluster(ctx context.Context, binary, dir string, nodes int) (c *cluster, err error) {
	data := filepath.Join(dir, "data")
	port, err := testenv.Port()
	if err != nil {
		return nil, err
	}
	c = &cluster{url: "https://127.0.0.1:" + strconv.Itoa(port), adminKubeconfig: filepath.Join(data, "admin.kubeconfig")}
	c.Proc, err = testenv.Spawn("kubik cluster (ch03 binary)", filepath.Join(dir, "cluster.log"), binary,
		"--data-dir", data, "--secure-port", strconv.Itoa(port), "--hollow-nodes", strconv.Itoa(nodes),
		"--leader-elect=false", "--log-level", "warn")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Stop(15 * time.Second)
		}
	}()

	// The apiserver, then the nodes.
	deadline := time.Now().Add(2 * time.Minute)
	var admin *rest.Client
	for {
		if admin == nil {
			if _, err := os.Stat(c.adminKubeconfig); err == nil {
				admin, _ = newClient(c.adminKubeconfig, "bench-controllers")
			}
		}
		var ready int
		err = errors.New("no admin.kubeconfig yet")
		if admin != nil {
			ready, err = readyNodes(ctx, admin)
			if err == nil && ready == nodes {
				break
			}
		}
		if c.Exited() {
			return nil, fmt.Errorf("%s exited (log: %s)", c.Name, c.LogPath)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("%d of %d hollow nodes Ready and untainted after 2m (last error: %v; log: %s)",
				ready, nodes, err, c.LogPath)
		}
		time.Sleep(500 * time.Millisecond)
	}

	ca, err := pki.EnsureCA(data)
	if err != nil {
		return nil, err
	}
	c.kcmKubeconfig = filepath.Join(dir, "controller-manager.kubeconfig")
	if err := ca.WriteIdentityKubeconfig(c.kcmKubeconfig, c.url, pki.ControllerManager); err != nil {
		return nil, err
	}
	return c, nil
}

func readyNodes(ctx context.Context, c *rest.Client) (int, error) {
	list, err := rest.List[corev1.Node](ctx, c, "", rest.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, node := range list.Items {
		ready := false
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		for _, t := range node.Spec.Taints {
			if t.Key == "node.kubernetes.io/not-ready" {
				ready = false
			}
		}
		if ready {
			n++
		}
	}
	return n, nil
}

// newClient is an unthrottled client for the benchmark's own requests.
func newClient(kubeconfig, userAgent string) (*rest.Client, error) {
	k, err := pki.LoadKubeconfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	return rest.NewForConfig(rest.Config{Kubeconfig: k, UserAgent: userAgent, QPS: -1, Timeout: time.Minute})
}
