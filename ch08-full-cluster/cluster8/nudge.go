package cluster8

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/provision"
)

// nudgeRuntimes works around containerd 1.6's reload of the CNI
// configuration, which on a busy host now and then misses the node
// agent's file, or reads it half-written (chapter 5's containerd package
// writes its own configuration before containerd starts for this reason;
// the node agent's can only come later, once the node has its subnet).
// The Node then stays NotReady with "cni plugin not initialized" although
// the file is there. While a worker's Node says so and its file has been
// there 10 s, the same bytes are written again in place (the file is
// never empty, and containerd reloads on the change) every 5 s, as
// chapter 6's node program does; after 30 s of that the machine's kubelet
// is restarted (systemctl restart kubelet: its containerd starts afresh,
// and loads the agent's file anew). It runs until ctx ends.
func (c *Cluster) nudgeRuntimes(ctx context.Context) {
	admin, err := c.Admin("kubik-ch08-runtime-nudge")
	if err != nil {
		return
	}
	stuckSince := map[string]time.Time{}
	wrote := map[string]time.Time{} // our last write of each machine's file
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		nodes, err := rest.List[corev1.Node](lctx, admin, "", rest.ListOptions{})
		cancel()
		if err != nil {
			continue
		}
		stuck := map[string]bool{}
		for _, n := range nodes.Items {
			if m, ok := c.Topology.Machine(n.Name); !ok || m.Role != provision.Worker || !cniNotInitialized(&n) {
				continue
			}
			at, ok := c.rewriteCNIConf(n.Name, wrote[n.Name])
			if !ok {
				continue
			}
			wrote[n.Name] = at
			stuck[n.Name] = true
			if stuckSince[n.Name].IsZero() {
				stuckSince[n.Name] = time.Now()
			}
			if time.Since(stuckSince[n.Name]) >= 30*time.Second {
				c.log.Warn("containerd has not loaded the CNI configuration for 30 s; restarting the kubelet", "machine", n.Name)
				rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
				if err := c.Supervisor(n.Name).Restart(rctx, "kubelet"); err != nil {
					c.log.Warn("restarting the kubelet", "machine", n.Name, "err", err)
				}
				cancel()
				stuckSince[n.Name] = time.Now()
			}
		}
		for name := range stuckSince {
			if !stuck[name] {
				delete(stuckSince, name)
				delete(wrote, name)
			}
		}
	}
}

func cniNotInitialized(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status != corev1.ConditionTrue && strings.Contains(cond.Message, "cni plugin not initialized")
		}
	}
	return false
}

// rewriteCNIConf writes machine's CNI configuration again, in place,
// unless the node agent has just written it (after our last write,
// ours): it returns when it wrote, and whether it did.
func (c *Cluster) rewriteCNIConf(machine string, ours time.Time) (time.Time, bool) {
	path := filepath.Join(c.Root(machine), provision.CNIConfPath)
	fi, err := os.Stat(path)
	if err != nil || (time.Since(fi.ModTime()) < 10*time.Second && fi.ModTime().After(ours)) {
		return time.Time{}, false // not written yet, or just now by the agent
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return time.Time{}, false
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	if _, err := f.WriteAt(data, 0); err != nil {
		return time.Time{}, false
	}
	c.log.Info("containerd has not loaded the CNI configuration; writing it again", "machine", machine, "file", path)
	return time.Now(), true
}
