// Chapter 5: the kubelet.
//
// Chapter 4's cluster (the apiserver on etcd, kube-scheduler,
// kube-controller-manager; package cluster4) plus one REAL node: this
// machine (package node5; package cluster5 puts the two together). Its
// kubelet, identity system:node:<hostname>, runs the pods bound to it as
// containers in a containerd of its own (package containerd), which runs
// runc; pods get addresses from the CNI bridge in the node's network
// namespace. Images come from tarballs (`make images`), never a registry.
// As root (e.g. sudo env "PATH=$PATH" make ch05-run):
//
//	make ch05-run
//	kubectl run web --image=kubik.local/demo:1.0
//	kubectl get pods -o wide
//
// Hollow nodes are off by default here (--hollow-nodes=N brings them back).
// On exit the kubelet removes its pods and stops containerd; nothing stays
// behind: no containers, network namespace, mounts or cgroups.
//
// Static pods: --pod-manifest-path=DIR (upstream's flag; empty, the
// default as upstream's, means none — kubeadm passes
// /etc/kubernetes/manifests) runs the pod manifests of DIR, read again every
// --file-check-frequency (20s), and shows each as a mirror pod
// <name>-<node> in the apiserver.
//
// SIGHUP restarts the kubelet alone, like `systemctl restart kubelet` on a
// real node: the kubelet stops (`kubelet restarting` in the log), the pods
// keep running in containerd, and a fresh kubelet takes them over again.
// The program's PID is in its data dir (and in the banner), so the signal
// goes to this cluster only, not to every program of that name on the
// machine:
//
//	kill -HUP $(cat .kubik/ch05/cluster.pid)
package main

import (
	"context"
	"log/slog"
	"os"

	"kubik/ch01-apiserver/app"
	"kubik/ch05-kubelet/cluster5"
)

func main() {
	cfg := cluster5.NewConfig()
	app.Main(cfg, "cluster", func(ctx context.Context, log *slog.Logger) error {
		c, err := cluster5.Start(ctx, cfg, log) // chapter 4's cluster + this machine as a node: containerd + kubelet
		if err != nil {
			return err
		}
		defer c.Stop()
		c.Welcome(os.Stdout)
		return app.Wait(ctx, c.Err())
	})
}
