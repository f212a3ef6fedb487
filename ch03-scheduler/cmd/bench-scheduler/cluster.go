package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
)

// --- etcd and the apiservers ------------------------------------------------

// controlPlane is one fresh etcd and one apiserver on it, with the
// kubeconfigs of the administrator and of system:kube-scheduler.
type controlPlane struct {
	etcd, apiserver *testenv.Proc
	url             string
	adminKubeconfig string
	schedKubeconfig string
}

func (cp *controlPlane) stop() {
	cp.apiserver.Stop(15 * time.Second)
	cp.etcd.Stop(15 * time.Second)
}

// startControlPlane starts etcd (Debian's binary, empty data directory) and
// the apiserver kind ("kubik": our ch02 binary on that etcd; "upstream":
// kube-apiserver with compare/refcluster's flags) in dir, and waits until
// it is ready.
func startControlPlane(ctx context.Context, kind, dir string, bins binaries) (cp *controlPlane, err error) {
	cp = &controlPlane{}
	defer func() {
		if err != nil {
			cp.stop()
		}
	}()
	var etcdURL string
	if cp.etcd, etcdURL, err = testenv.StartEtcd(ctx, bins.etcd, dir); err != nil {
		return nil, err
	}
	port, err := testenv.Port()
	if err != nil {
		return nil, err
	}
	cp.url = "https://127.0.0.1:" + strconv.Itoa(port)
	var pkiDir string
	switch kind {
	case "kubik":
		// The binary makes its CA in --data-dir/pki and writes admin.kubeconfig there.
		pkiDir = filepath.Join(dir, "data")
		cp.adminKubeconfig = filepath.Join(pkiDir, "admin.kubeconfig")
		cp.apiserver, err = testenv.Spawn("kubik-apiserver", filepath.Join(dir, "apiserver.log"), bins.kubikAPIServer,
			"--data-dir", pkiDir, "--secure-port", strconv.Itoa(port), "--etcd-servers", etcdURL, "--log-level", "warn")
	case "upstream":
		pkiDir = dir
		var cert, key string
		cp.adminKubeconfig, cert, key, err = upstreamPKI(dir, cp.url)
		if err != nil {
			return nil, err
		}
		p := func(name string) string { return filepath.Join(pki.Dir(dir), name) }
		cp.apiserver, err = testenv.Spawn("kube-apiserver", filepath.Join(dir, "apiserver.log"), bins.upstreamAPIServer,
			"--etcd-servers", etcdURL,
			"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
			"--cert-dir", filepath.Join(dir, "apiserver-certs"),
			"--tls-cert-file", cert, "--tls-private-key-file", key, "--client-ca-file", p(pki.CACertFile),
			"--service-account-key-file", p(pki.SAPubFile), "--service-account-signing-key-file", p(pki.SAKeyFile),
			"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
			"--authorization-mode", "Node,RBAC", "--service-cluster-ip-range", "10.96.0.0/12",
			"--profiling=false")
	default:
		return nil, fmt.Errorf("unknown apiserver %q (kubik or upstream)", kind)
	}
	if err != nil {
		return nil, err
	}
	if err := waitReady(ctx, cp.apiserver, cp.url, cp.adminKubeconfig, 2*time.Minute); err != nil {
		return nil, err
	}
	ca, err := pki.EnsureCA(pkiDir)
	if err != nil {
		return nil, err
	}
	cp.schedKubeconfig = filepath.Join(dir, "scheduler.kubeconfig")
	if err := ca.WriteIdentityKubeconfig(cp.schedKubeconfig, cp.url, pki.Scheduler); err != nil {
		return nil, err
	}
	return cp, nil
}

// upstreamPKI makes the CA, the serving certificate and the service account
// key for kube-apiserver in dir (ch01-apiserver/pki's layout, as
// compare/refcluster): it returns the admin kubeconfig and the serving
// certificate and key files.
func upstreamPKI(dir, url string) (admin, cert, key string, err error) {
	ca, err := pki.EnsureCA(dir)
	if err != nil {
		return "", "", "", err
	}
	if cert, key, err = ca.EnsureServingCert(dir, []string{"127.0.0.1", "10.96.0.1"}); err != nil {
		return "", "", "", err
	}
	if _, err := pki.EnsureServiceAccountKey(dir); err != nil {
		return "", "", "", err
	}
	admin = filepath.Join(dir, "admin.kubeconfig")
	return admin, cert, key, ca.WriteIdentityKubeconfig(admin, url, pki.Admin)
}

// waitReady waits for the admin kubeconfig, /readyz and the default
// namespace (upstream is ready before its bootstrap objects are all there).
func waitReady(ctx context.Context, p *testenv.Proc, url, adminKubeconfig string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(adminKubeconfig); err == nil {
			if c, err := newClient(adminKubeconfig, "bench-scheduler"); err == nil {
				code, err := getStatus(ctx, c, "/readyz")
				if err == nil && code == http.StatusOK {
					if code, err := getStatus(ctx, c, "/api/v1/namespaces/default"); err == nil && code == http.StatusOK {
						return nil
					}
				}
			}
		}
		if p.Exited() {
			return fmt.Errorf("%s exited (log: %s)", p.Name, p.LogPath)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s not ready at %s within %v (log: %s)", p.Name, url, timeout, p.LogPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func getStatus(ctx context.Context, c *rest.Client, path string) (int, error) {
	err := c.Do(ctx, rest.Request{Method: http.MethodGet, Path: path}, nil)
	if err == nil {
		return http.StatusOK, nil
	}
	var se *rest.StatusError
	if errors.As(err, &se) {
		return int(se.ErrStatus.Code), nil
	}
	return 0, err
}

// newClient is an unthrottled client (no client-side rate limit) for the
// benchmark's own requests.
func newClient(kubeconfig, userAgent string) (*rest.Client, error) {
	k, err := pki.LoadKubeconfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	return rest.NewForConfig(rest.Config{Kubeconfig: k, UserAgent: userAgent, QPS: -1, Timeout: time.Minute})
}

// --- what upstream's kube-scheduler needs ------------------------------------

// upstreamSchedulerResources are the resources kube-scheduler v1.35.4's
// informers list and watch with its default configuration; it schedules
// nothing until every one of their caches has synced.
var upstreamSchedulerResources = []struct{ groupVersion, resource string }{
	{"v1", "pods"}, {"v1", "nodes"}, {"v1", "namespaces"}, {"v1", "services"},
	{"v1", "persistentvolumes"}, {"v1", "persistentvolumeclaims"}, {"v1", "replicationcontrollers"},
	{"apps/v1", "replicasets"}, {"apps/v1", "statefulsets"},
	{"policy/v1", "poddisruptionbudgets"},
	{"storage.k8s.io/v1", "storageclasses"}, {"storage.k8s.io/v1", "csinodes"}, {"storage.k8s.io/v1", "csidrivers"},
	{"storage.k8s.io/v1", "csistoragecapacities"}, {"storage.k8s.io/v1", "volumeattachments"},
	{"resource.k8s.io/v1", "deviceclasses"}, {"resource.k8s.io/v1", "resourceslices"}, {"resource.k8s.io/v1", "resourceclaims"},
}

// missingForUpstreamScheduler lists the resources of
// upstreamSchedulerResources the apiserver does not serve (by discovery).
func missingForUpstreamScheduler(ctx context.Context, c *rest.Client) ([]string, error) {
	served := map[string]map[string]bool{}
	var missing []string
	for _, r := range upstreamSchedulerResources {
		if served[r.groupVersion] == nil {
			served[r.groupVersion] = map[string]bool{}
			path := "/apis/" + r.groupVersion
			if r.groupVersion == "v1" {
				path = "/api/v1"
			}
			var list struct {
				Resources []struct {
					Name string `json:"name"`
				} `json:"resources"`
			}
			err := c.Do(ctx, rest.Request{Method: http.MethodGet, Path: path}, &list)
			if err != nil && !rest.IsNotFound(err) {
				return nil, err
			}
			for _, res := range list.Resources {
				served[r.groupVersion][res.Name] = true
			}
		}
		if !served[r.groupVersion][r.resource] {
			missing = append(missing, r.groupVersion+"/"+r.resource)
		}
	}
	return missing, nil
}

func etcdVersion(path string) string {
	out, _ := exec.Command(path, "--version").Output()
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimPrefix(line, "etcd Version: ")
}
