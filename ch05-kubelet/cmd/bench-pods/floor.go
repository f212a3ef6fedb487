package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/internal/testenv"
)

// criFloor is a containerd of the benchmark's own, set up exactly as the
// ch05 program sets up its node's (package containerd: own network
// namespace, CNI bridge, cgroup parent), driven directly through the CRI
// with no apiserver and no kubelet: the least a pod start can cost here.
type criFloor struct {
	rc   containerd.Config
	d    *containerd.Daemon
	conn *grpc.ClientConn
	rt   cri.RuntimeServiceClient
	img  cri.ImageServiceClient
}

func startFloor(ctx context.Context, dir, imageDir string) (*criFloor, error) {
	sum := sha256.Sum256([]byte(dir))
	f := &criFloor{rc: containerd.Config{Dir: filepath.Join(dir, "containerd"), Name: "kubik-" + hex.EncodeToString(sum[:4]),
		PodCIDR: "10.244.0.0/24", SandboxImage: images.Pause}}
	d, err := containerd.Start(ctx, f.rc)
	if err != nil {
		return nil, err
	}
	f.d = d
	for _, t := range []string{"pause.tar", "busybox.tar"} {
		if err := d.ImportImage(filepath.Join(imageDir, t)); err != nil {
			f.stop()
			return nil, err
		}
	}
	if f.conn, err = grpc.NewClient(f.rc.Endpoint(), grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
		f.stop()
		return nil, err
	}
	f.rt, f.img = cri.NewRuntimeServiceClient(f.conn), cri.NewImageServiceClient(f.conn)
	return f, nil
}

// startPod makes the CRI calls the kubelet makes for benchPod, in order:
// RunPodSandbox, ImageStatus, CreateContainer, StartContainer.
func (f *criFloor) startPod(ctx context.Context, name string) error {
	uid := fmt.Sprintf("floor-%s-%d", name, time.Now().UnixNano())
	logDir := filepath.Join(f.rc.LogDir(), name)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	ns := &cri.NamespaceOption{Network: cri.NamespaceMode_POD, Pid: cri.NamespaceMode_CONTAINER, Ipc: cri.NamespaceMode_POD}
	sbc := &cri.PodSandboxConfig{
		Metadata:     &cri.PodSandboxMetadata{Name: name, Namespace: namespace, Uid: uid},
		Hostname:     name,
		LogDirectory: logDir,
		Linux: &cri.LinuxPodSandboxConfig{CgroupParent: f.rc.CgroupParent() + "/pod" + uid,
			SecurityContext: &cri.LinuxSandboxSecurityContext{NamespaceOptions: ns}},
	}
	sb, err := f.rt.RunPodSandbox(ctx, &cri.RunPodSandboxRequest{Config: sbc})
	if err != nil {
		return fmt.Errorf("RunPodSandbox: %w", err)
	}
	image := &cri.ImageSpec{Image: "busybox:1.35"}
	if st, err := f.img.ImageStatus(ctx, &cri.ImageStatusRequest{Image: image}); err != nil || st.Image == nil {
		return fmt.Errorf("ImageStatus busybox:1.35: %v (present: %v)", err, err == nil && st.Image != nil)
	}
	c, err := f.rt.CreateContainer(ctx, &cri.CreateContainerRequest{PodSandboxId: sb.PodSandboxId, SandboxConfig: sbc,
		Config: &cri.ContainerConfig{Metadata: &cri.ContainerMetadata{Name: "sleep"}, Image: image,
			Command: []string{"sleep", "3600"}, LogPath: "sleep/0.log",
			Linux: &cri.LinuxContainerConfig{Resources: &cri.LinuxContainerResources{CpuShares: 2},
				SecurityContext: &cri.LinuxContainerSecurityContext{NamespaceOptions: ns}}}})
	if err != nil {
		return fmt.Errorf("CreateContainer: %w", err)
	}
	if _, err := f.rt.StartContainer(ctx, &cri.StartContainerRequest{ContainerId: c.ContainerId}); err != nil {
		return fmt.Errorf("StartContainer: %w", err)
	}
	return nil
}

// run starts n pods, one every 1/rate s (rate > 0) or all at once from
// workers goroutines, and returns each pod's latency: from its own start
// (paced) or from the burst's start.
func (f *criFloor) run(ctx context.Context, mode string, n int, rate float64, workers int) ([]time.Duration, error) {
	lat := make([]time.Duration, n)
	t0 := time.Now()
	if rate > 0 {
		for i := range n {
			time.Sleep(time.Until(t0.Add(time.Duration(float64(i) / rate * float64(time.Second)))))
			start := time.Now()
			if err := f.startPod(ctx, fmt.Sprintf("%s-%03d", mode, i)); err != nil {
				return nil, err
			}
			lat[i] = time.Since(start)
		}
		return lat, f.removeAll(ctx)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for i := range next {
				err := f.startPod(ctx, fmt.Sprintf("%s-%03d", mode, i))
				mu.Lock()
				lat[i] = time.Since(t0)
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return lat, f.removeAll(ctx)
}

// removeAll stops and removes every sandbox (and so its containers).
func (f *criFloor) removeAll(ctx context.Context) error {
	resp, err := f.rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
	if err != nil {
		return err
	}
	for _, sb := range resp.Items {
		if _, err := f.rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			return err
		}
		if _, err := f.rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			return err
		}
	}
	return nil
}

// stop removes the pods, stops containerd and checks nothing is left.
func (f *criFloor) stop() error {
	if f.rt != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		f.removeAll(ctx)
		cancel()
	}
	if f.conn != nil {
		f.conn.Close()
	}
	err := f.d.Stop()
	if left := containerd.Leftovers(f.rc); len(left) > 0 {
		containerd.Cleanup(f.rc, nil)
		return fmt.Errorf("CRI floor's containerd left (now removed):\n  %s", strings.Join(left, "\n  "))
	}
	return err
}

// cpu is the CPU time containerd has used so far.
func (f *criFloor) cpu() time.Duration {
	b, _ := os.ReadFile(filepath.Join(f.rc.Dir, "containerd.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return testenv.CPUTime(pid)
}
