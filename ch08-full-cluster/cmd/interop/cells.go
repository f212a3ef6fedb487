package main

import (
	"path/filepath"
	"strings"
)

// A cell is one combination of the matrix: chapter 8's cluster (one
// control-plane machine, a load balancer, two workers) with some of its
// components upstream's, given to `ch08-full-cluster up` as binary
// overrides.
type cell struct {
	Name    string
	Summary string
	// Upstream are the components run from upstream's binaries, as
	// cluster8's override keys: "kube-scheduler", "w-2/kube-proxy".
	Upstream []string
	// Known are the steps known to fail in this cell, and why: the table
	// shows "known" for them, and they fail neither the command nor the
	// test (one that passes shows ok).
	Known map[string]string
	// NotRun says why the cell cannot run on this host (the table shows
	// it, and the scenario is not started).
	NotRun string
}

// cells is the matrix, in the order it runs.
var cells = []cell{
	{Name: "kubik", Summary: "all Kubik (the baseline)"},
	{Name: "upstream-managers", Summary: "Kubik apiserver + upstream kube-scheduler and kube-controller-manager + Kubik workers",
		Upstream: []string{"kube-scheduler", "kube-controller-manager"}},
	{Name: "upstream-apiserver", Summary: "upstream kube-apiserver (+ etcd) + Kubik scheduler, controller manager, kubelet, kube-proxy, node agent",
		Upstream: []string{"kube-apiserver"}},
	{Name: "upstream-kube-proxy", Summary: "Kubik control plane, w-1 Kubik kube-proxy, w-2 upstream kube-proxy",
		Upstream: []string{"w-2/kube-proxy"}},
	{Name: "upstream-kubelet", Summary: "Kubik control plane, w-1 Kubik kubelet, w-2 upstream kubelet (our containerd, our CNI)",
		Upstream: []string{"w-2/kubelet"},
		NotRun: "upstream's kubelet does not start its containerd (ours runs it in-process): a containerd unit is not rendered yet; " +
			"and at start it sets vm.overcommit_memory, kernel.panic, kernel.panic_on_oops, which are the host's, not the machine's namespace's " +
			"(--protect-kernel-defaults=true makes it refuse instead, as this host's values differ)"},
}

// upFlags are the overrides of `ch08-full-cluster up` for the cell, the
// binaries taken from refBin: --scheduler-bin DIR, --kube-proxy-bin w-2=DIR.
func (c cell) upFlags(refBin string) []string {
	flagOf := map[string]string{"kube-apiserver": "--apiserver-bin", "kube-scheduler": "--scheduler-bin",
		"kube-controller-manager": "--controller-manager-bin", "kubelet": "--kubelet-bin", "kube-proxy": "--kube-proxy-bin"}
	var out []string
	for _, key := range c.Upstream {
		machine, component, one := strings.Cut(key, "/")
		if !one {
			component = machine
		}
		file := filepath.Join(refBin, component)
		if one {
			file = machine + "=" + file
		}
		out = append(out, flagOf[component], file)
	}
	return out
}

// find is the cell called name.
func find(name string) (cell, bool) {
	for _, c := range cells {
		if c.Name == name {
			return c, true
		}
	}
	return cell{}, false
}
