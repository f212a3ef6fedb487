// Command etcd is an etcd member: etcd's own server main
// (go.etcd.io/etcd/server/v3/etcdmain), built with this module's etcd
// version so that the member and the apiservers' client match, with all
// of etcd's flags. A member of a three-member cluster with TLS on both
// ports, as Kubernetes The Hard Way's (package pki's files):
//
//	etcd --name cp-1 --data-dir /var/lib/etcd \
//	    --listen-client-urls https://10.240.0.11:2379,https://127.0.0.1:2379 \
//	    --advertise-client-urls https://10.240.0.11:2379 \
//	    --listen-peer-urls https://10.240.0.11:2380 --initial-advertise-peer-urls https://10.240.0.11:2380 \
//	    --initial-cluster cp-1=https://10.240.0.11:2380,cp-2=https://10.240.0.12:2380,cp-3=https://10.240.0.13:2380 \
//	    --initial-cluster-state new --initial-cluster-token kubik \
//	    --cert-file etcd-server-cp-1.crt --key-file etcd-server-cp-1.key \
//	    --client-cert-auth --trusted-ca-file ca.crt \
//	    --peer-cert-file etcd-peer-cp-1.crt --peer-key-file etcd-peer-cp-1.key \
//	    --peer-client-cert-auth --peer-trusted-ca-file ca.crt
//
// Upstream: etcd's server/main.go.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
