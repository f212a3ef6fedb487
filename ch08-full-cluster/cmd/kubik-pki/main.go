// Command kubik-pki writes a cluster's PKI into one directory, laid out
// as Kubernetes The Hard Way lays it out (package pki): the CA, etcd's
// server and peer certificates per member and the apiservers' client
// certificate to etcd, the apiservers' serving certificate with every
// name, the kubelets' serving and client certificates, every component's
// client certificate and kubeconfig, the ServiceAccount key pair and the
// encryption configuration. For example:
//
//	kubik-pki --dir .kubik/pki \
//	    --control-plane cp-1=10.240.0.11,cp-2=10.240.0.12,cp-3=10.240.0.13 \
//	    --workers node-0=10.240.0.20,node-1=10.240.0.21 \
//	    --load-balancer 10.240.0.10:6443
//
// Run again, it keeps every key and every certificate that still fits:
// only what a changed topology needs is issued.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	kpki "kubik/ch01-apiserver/pki"
	"kubik/ch08-full-cluster/pki"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("kubik-pki", flag.ContinueOnError)
	dir := fs.String("dir", "", "the directory to write into (required)")
	var t pki.Topology
	controlPlane := fs.String("control-plane", "", "the control-plane machines: name=ip,name=ip,... (required)")
	workers := fs.String("workers", "", "the worker machines: name=ip,name=ip,...")
	fs.StringVar(&t.LoadBalancer, "load-balancer", "", "the load balancer in front of the apiservers: host or host:port (required)")
	fs.StringVar(&t.ClusterName, "cluster-name", kpki.ClusterName, "the cluster's name in the kubeconfigs")
	fs.StringVar(&t.ServiceClusterIPRange, "service-cluster-ip-range", "10.96.0.0/12", "the service CIDR (its first IP is the kubernetes Service's)")
	fs.StringVar(&t.ClusterDomain, "cluster-domain", "cluster.local", "the cluster's DNS domain")
	fs.IntVar(&t.SecurePort, "secure-port", 6443, "the apiservers' port (the load balancer's, when --load-balancer has none)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "kubik-pki:", err)
		return 1
	}
	if *dir == "" {
		return fail(fmt.Errorf("--dir is required"))
	}
	var err error
	if t.ControlPlane, err = pki.ParseMachines(*controlPlane); err != nil {
		return fail(fmt.Errorf("--control-plane: %w", err))
	}
	if t.Workers, err = pki.ParseMachines(*workers); err != nil {
		return fail(fmt.Errorf("--workers: %w", err))
	}
	if err := pki.Write(*dir, t); err != nil {
		return fail(err)
	}
	lb, _ := t.LoadBalancerURL()
	fmt.Printf("PKI of %d control-plane and %d worker machines in %s\nadmin: %s (server %s)\n",
		len(t.ControlPlane), len(t.Workers), *dir, filepath.Join(*dir, pki.Admin+".kubeconfig"), lb)
	return 0
}
