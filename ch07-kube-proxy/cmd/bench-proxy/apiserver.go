package main

// The apiserver both proxiers watch: chapter 1's binary on this machine's
// loopback, and the benchmark's objects in it.

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
)

const (
	benchNamespace = "bench"
	nodeName       = "node-1"
	nodeIP         = "10.240.0.11" // eth0 of the proxiers' namespace
	clusterCIDR    = "10.128.0.0/9"
)

// apiserver is the running chapter 1 binary.
type apiserver struct {
	bin, dir string
	port     int
	proc     *testenv.Proc
	admin    *rest.Client
	services int // how many bench Services exist
}

func startAPIServer(ctx context.Context, dir string) (*apiserver, error) {
	bin, err := testenv.BuildBinary("kubik/ch01-apiserver")
	if err != nil {
		return nil, err
	}
	a := &apiserver{bin: bin, dir: filepath.Join(dir, "apiserver")}
	for attempt := 0; ; attempt++ {
		if a.port, err = testenv.Port(); err != nil {
			return nil, err
		}
		a.proc, err = testenv.Spawn("apiserver", filepath.Join(dir, "apiserver.log"), bin, "--data-dir", a.dir, "--secure-port", strconv.Itoa(a.port))
		if err != nil {
			return nil, err
		}
		if err = waitReadyz(ctx, a.port, a.proc); err == nil {
			break
		}
		a.proc.Stop(5 * time.Second)
		if attempt == 2 {
			return nil, err
		}
	}
	if a.admin, err = rest.New(filepath.Join(a.dir, "admin.kubeconfig"), "bench-proxy"); err != nil {
		return nil, err
	}
	if _, err := rest.Create(ctx, a.admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}}); err != nil {
		return nil, err
	}
	// The node the proxiers run as, with its address (kube-proxy reads its
	// Node; the label changes force full resyncs).
	node, err := rest.Create(ctx, a.admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName,
		Labels: map[string]string{"kubernetes.io/hostname": nodeName, "topology.kubernetes.io/zone": "zone-0"}}})
	if err != nil {
		return nil, err
	}
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: nodeIP}}
	if _, err := rest.UpdateStatus(ctx, a.admin, node); err != nil {
		return nil, err
	}
	return a, nil
}

func waitReadyz(ctx context.Context, port int, p *testenv.Proc) error {
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil && !p.Exited() {
		if resp, err := hc.Get("https://127.0.0.1:" + strconv.Itoa(port) + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the apiserver did not become ready (log: %s)", p.LogPath)
}

func (a *apiserver) stop() { a.proc.Stop(10 * time.Second) }

// kubeconfig writes a kubeconfig for identity (kube-proxy, admin) whose
// server is url.
func (a *apiserver) kubeconfig(component, url, out string) error {
	p, err := testenv.Spawn("kubeconfig", out+".log", a.bin, "kubeconfig", "--data-dir", a.dir, "--component", component, "--server", url, "--out", out)
	if err != nil {
		return err
	}
	<-p.Done
	if code := p.Cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("kubeconfig --component %s: exit %d (log: %s)", component, code, p.LogPath)
	}
	return nil
}

// benchService is Service i: ClusterIP from 10.100.0.0/16 on, port 80.
func benchService(i int) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: benchNamespace, Name: fmt.Sprintf("svc-%d", i)},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: fmt.Sprintf("10.%d.%d.%d", 100+i/62500, i/250%250, i%250+1),
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
}

// benchSlice is Service i's EndpointSlice with 2 endpoints; generation
// shifts their addresses (a one-endpoint change).
func benchSlice(i, generation int) *discoveryv1.EndpointSlice {
	s := slice(i, generation)
	s.Namespace = benchNamespace
	return s
}

// ensureServices creates Services (and their slices) up to n, with
// concurrent requests.
func (a *apiserver) ensureServices(ctx context.Context, n int) error {
	work := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range work {
				if _, err := rest.Create(ctx, a.admin, benchService(i)); err != nil && !rest.IsAlreadyExists(err) {
					select {
					case errs <- fmt.Errorf("Service %d: %w", i, err):
					default:
					}
					continue
				}
				if _, err := rest.Create(ctx, a.admin, benchSlice(i, 0)); err != nil && !rest.IsAlreadyExists(err) {
					select {
					case errs <- fmt.Errorf("EndpointSlice %d: %w", i, err):
					default:
					}
				}
			}
		})
	}
	for i := a.services; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	a.services = n
	return nil
}

// changeEndpoint replaces Service i's endpoints with those of generation.
func (a *apiserver) changeEndpoint(ctx context.Context, i, generation int) error {
	cur, err := rest.Get[discoveryv1.EndpointSlice](ctx, a.admin, benchNamespace, benchSlice(i, 0).Name)
	if err != nil {
		return err
	}
	next := benchSlice(i, generation)
	cur.Endpoints = next.Endpoints
	_, err = rest.Update(ctx, a.admin, cur)
	return err
}

// setZone changes the Node's zone label: a topology change, which makes a
// proxier resync everything.
func (a *apiserver) setZone(ctx context.Context, zone string) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{"topology.kubernetes.io/zone": zone}}})
	_, err := rest.Patch[corev1.Node](ctx, a.admin, "", nodeName, rest.MergePatchType, patch, "")
	return err
}
