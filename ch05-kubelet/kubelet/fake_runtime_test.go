package kubelet

// The unit tests of syncPod run a whole Kubelet without root or
// containerd: its runtime is k8s.io/cri-api's FakeRuntimeService and
// FakeImageService, served over a real gRPC unix socket (the kubelet dials
// Config.RuntimeEndpoint as it dials containerd's), and its apiserver is
// chapter 1's, in-process (package clienttest), which the kubelet talks to
// with its own identity system:node:<name>.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
	critest "k8s.io/cri-api/pkg/apis/testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/clienttest"
)

// fakeRuntime serves the fakes' RuntimeService and ImageService and
// records each CreateContainer and PullImage request.
type fakeRuntime struct {
	cri.UnimplementedRuntimeServiceServer
	cri.UnimplementedImageServiceServer
	rt  *critest.FakeRuntimeService
	img *critest.FakeImageService

	mu      sync.Mutex
	created []*cri.CreateContainerRequest
	pulls   []string         // images, in order
	stopped map[string]int64 // container ID -> StopContainer's timeout
	synced  map[string]int   // sandbox ID -> PodSandboxStatus calls: one per sync of its pod

	// networkReadyFrom > 0: the first networkReadyFrom-1 Status calls
	// answer NetworkReady=false, as containerd does before it has loaded
	// a CNI configuration.
	networkReadyFrom, statusCalls int
}

func newFakeRuntime() *fakeRuntime {
	return &fakeRuntime{rt: critest.NewFakeRuntimeService(), img: critest.NewFakeImageService(), stopped: map[string]int64{}, synced: map[string]int{}}
}

func (f *fakeRuntime) Version(ctx context.Context, r *cri.VersionRequest) (*cri.VersionResponse, error) {
	return f.rt.Version(ctx, r.Version)
}

func (f *fakeRuntime) Status(ctx context.Context, r *cri.StatusRequest) (*cri.StatusResponse, error) {
	f.mu.Lock()
	f.statusCalls++
	notReady := f.statusCalls < f.networkReadyFrom
	f.mu.Unlock()
	if notReady {
		return &cri.StatusResponse{Status: &cri.RuntimeStatus{Conditions: []*cri.RuntimeCondition{
			{Type: cri.RuntimeReady, Status: true},
			{Type: cri.NetworkReady, Status: false, Reason: "NetworkPluginNotReady", Message: "Network plugin returns error: cni plugin not initialized"},
		}}}, nil
	}
	return f.rt.Status(ctx, r.Verbose)
}

func (f *fakeRuntime) RunPodSandbox(ctx context.Context, r *cri.RunPodSandboxRequest) (*cri.RunPodSandboxResponse, error) {
	id, err := f.rt.RunPodSandbox(ctx, r.Config, r.RuntimeHandler)
	return &cri.RunPodSandboxResponse{PodSandboxId: id}, err
}

func (f *fakeRuntime) StopPodSandbox(ctx context.Context, r *cri.StopPodSandboxRequest) (*cri.StopPodSandboxResponse, error) {
	return &cri.StopPodSandboxResponse{}, f.rt.StopPodSandbox(ctx, r.PodSandboxId)
}

func (f *fakeRuntime) RemovePodSandbox(ctx context.Context, r *cri.RemovePodSandboxRequest) (*cri.RemovePodSandboxResponse, error) {
	return &cri.RemovePodSandboxResponse{}, f.rt.RemovePodSandbox(ctx, r.PodSandboxId)
}

func (f *fakeRuntime) PodSandboxStatus(ctx context.Context, r *cri.PodSandboxStatusRequest) (*cri.PodSandboxStatusResponse, error) {
	f.mu.Lock()
	f.synced[r.PodSandboxId]++
	f.mu.Unlock()
	return f.rt.PodSandboxStatus(ctx, r.PodSandboxId, r.Verbose)
}

func (f *fakeRuntime) ListPodSandbox(ctx context.Context, r *cri.ListPodSandboxRequest) (*cri.ListPodSandboxResponse, error) {
	items, err := f.rt.ListPodSandbox(ctx, r.Filter)
	return &cri.ListPodSandboxResponse{Items: items}, err
}

func (f *fakeRuntime) CreateContainer(ctx context.Context, r *cri.CreateContainerRequest) (*cri.CreateContainerResponse, error) {
	id, err := f.rt.CreateContainer(ctx, r.PodSandboxId, r.Config, r.SandboxConfig)
	if err == nil {
		f.mu.Lock()
		f.created = append(f.created, r)
		f.mu.Unlock()
	}
	return &cri.CreateContainerResponse{ContainerId: id}, err
}

func (f *fakeRuntime) StartContainer(ctx context.Context, r *cri.StartContainerRequest) (*cri.StartContainerResponse, error) {
	return &cri.StartContainerResponse{}, f.rt.StartContainer(ctx, r.ContainerId)
}

func (f *fakeRuntime) StopContainer(ctx context.Context, r *cri.StopContainerRequest) (*cri.StopContainerResponse, error) {
	f.mu.Lock()
	f.stopped[r.ContainerId] = r.Timeout
	f.mu.Unlock()
	return &cri.StopContainerResponse{}, f.rt.StopContainer(ctx, r.ContainerId, r.Timeout)
}

func (f *fakeRuntime) RemoveContainer(ctx context.Context, r *cri.RemoveContainerRequest) (*cri.RemoveContainerResponse, error) {
	return &cri.RemoveContainerResponse{}, f.rt.RemoveContainer(ctx, r.ContainerId)
}

func (f *fakeRuntime) ListContainers(ctx context.Context, r *cri.ListContainersRequest) (*cri.ListContainersResponse, error) {
	list, err := f.rt.ListContainers(ctx, r.Filter)
	return &cri.ListContainersResponse{Containers: list}, err
}

func (f *fakeRuntime) ContainerStatus(ctx context.Context, r *cri.ContainerStatusRequest) (*cri.ContainerStatusResponse, error) {
	return f.rt.ContainerStatus(ctx, r.ContainerId, r.Verbose)
}

func (f *fakeRuntime) ImageStatus(ctx context.Context, r *cri.ImageStatusRequest) (*cri.ImageStatusResponse, error) {
	return f.img.ImageStatus(ctx, r.Image, r.Verbose)
}

func (f *fakeRuntime) PullImage(ctx context.Context, r *cri.PullImageRequest) (*cri.PullImageResponse, error) {
	f.mu.Lock()
	f.pulls = append(f.pulls, r.Image.Image)
	f.mu.Unlock()
	ref, err := f.img.PullImage(ctx, r.Image, r.Auth, r.SandboxConfig)
	return &cri.PullImageResponse{ImageRef: ref}, err
}

// createdNames are the names of the containers created so far, in order.
func (f *fakeRuntime) createdNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.created {
		out = append(out, r.Config.Metadata.Name)
	}
	return out
}

// createRequest is the CreateContainer request of container name's attempt.
func (f *fakeRuntime) createRequest(name string, attempt uint32) *cri.CreateContainerRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.created {
		if r.Config.Metadata.Name == name && r.Config.Metadata.Attempt == attempt {
			return r
		}
	}
	return nil
}

// stopTimeout is the timeout StopContainer got for container id, if it
// was stopped.
func (f *fakeRuntime) stopTimeout(id string) (int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.stopped[id]
	return t, ok
}

// syncs counts the syncs of the pod whose sandbox is id so far (each
// reads the sandbox's status).
func (f *fakeRuntime) syncs(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.synced[id]
}

// imageCalls are the ImageService methods called so far.
func (f *fakeRuntime) imageCalls() []string {
	f.img.Lock()
	defer f.img.Unlock()
	return slices.Clone(f.img.Called)
}

func (f *fakeRuntime) pullCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.pulls)
}

// container is (a copy of) the status of the fake container name
// (attempt) of the pod with uid.
func (f *fakeRuntime) container(uid, name string, attempt uint32) (*cri.ContainerStatus, bool) {
	f.rt.Lock()
	defer f.rt.Unlock()
	for _, c := range f.rt.Containers {
		if c.Labels[labelPodUID] == uid && c.Metadata.Name == name && c.Metadata.Attempt == attempt {
			return proto.Clone(&c.ContainerStatus).(*cri.ContainerStatus), true
		}
	}
	return nil, false
}

// exit makes a running container exit with code at finishedAt, as its
// process would.
func (f *fakeRuntime) exit(id string, code int32, finishedAt time.Time) {
	f.rt.Lock()
	defer f.rt.Unlock()
	c := f.rt.Containers[id]
	c.State, c.ExitCode, c.FinishedAt = cri.ContainerState_CONTAINER_EXITED, code, finishedAt.UnixNano()
}

// sandboxes are (copies of) the statuses of the fake sandboxes of the
// pod with uid.
func (f *fakeRuntime) sandboxes(uid string) []*cri.PodSandboxStatus {
	f.rt.Lock()
	defer f.rt.Unlock()
	var out []*cri.PodSandboxStatus
	for _, s := range f.rt.Sandboxes {
		if s.Labels[labelPodUID] == uid {
			out = append(out, proto.Clone(&s.PodSandboxStatus).(*cri.PodSandboxStatus))
		}
	}
	return out
}

func (f *fakeRuntime) called(method string) bool {
	return slices.Contains(f.rt.GetCalls(), method)
}

// fakeClock is the back-offs' clock: it moves only when the test says.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fixture is a running Kubelet on a fake runtime, with an apiserver.
type fixture struct {
	t       *testing.T
	node    string
	root    string // --root-dir
	runtime *fakeRuntime
	clock   *fakeClock
	admin   *rest.Client
	k       *Kubelet
}

// newFixture starts an apiserver, the fake runtime (with the images
// given present) and a kubelet for node node-<random>; everything stops
// when the test ends.
func newFixture(t *testing.T, images ...string) *fixture {
	t.Helper()
	return newFixtureOn(t, newFakeRuntime(), images...)
}

// newFixtureOn is newFixture on the fake runtime given.
func newFixtureOn(t *testing.T, rt *fakeRuntime, images ...string) *fixture {
	t.Helper()
	env := clienttest.Start(t, nil)
	f := &fixture{t: t, node: "node-" + randomSuffix(), root: t.TempDir(),
		clock:   &fakeClock{now: time.Now()},
		admin:   env.Client(t, pki.Admin),
		runtime: rt}
	f.runtime.img.SetFakeImages(images)

	// A short directory of its own: a unix socket path has at most 107 bytes.
	sockDir, err := os.MkdirTemp("", "kubik-cri-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "cri.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	cri.RegisterRuntimeServiceServer(srv, f.runtime)
	cri.RegisterImageServiceServer(srv, f.runtime)
	go srv.Serve(l)
	t.Cleanup(srv.Stop)

	log := testLogger(t)
	f.k, err = New(Config{NodeName: f.node, NodeIP: "127.0.0.1", Kubeconfig: env.Kubeconfig(t, pki.Node(f.node)),
		RuntimeEndpoint: "unix://" + sock, PodLogsDir: filepath.Join(f.root, "logs", "pods"), RootDir: f.root, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	f.k.crashBackoff.Now, f.k.pullBackoff.Now = f.clock.Now, f.clock.Now
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.k.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("kubelet: %v", err)
		}
		f.k.Close()
	})
	return f
}

func randomSuffix() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// testLogger sends the kubelet's log to the test's log until the test
// ends (goroutines of a stopping kubelet may still write after).
func testLogger(t *testing.T) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() { w.mu.Lock(); w.done = true; w.mu.Unlock() })
	return slog.New(slog.NewTextHandler(w, nil))
}

type testWriter struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(string(p))
	}
	return len(p), nil
}

// createPod creates pod in namespace default, bound to the fixture's node.
func (f *fixture) createPod(pod *corev1.Pod) *corev1.Pod {
	f.t.Helper()
	pod.Namespace, pod.Spec.NodeName = corev1.NamespaceDefault, f.node
	got, err := rest.Create(context.Background(), f.admin, pod)
	if err != nil {
		f.t.Fatal(err)
	}
	return got
}

// waitFor polls cond every 50 ms until it holds, for at most a minute.
func (f *fixture) waitFor(what string, cond func() bool) {
	f.t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitForPod polls the pod in the apiserver until cond holds and returns it.
func (f *fixture) waitForPod(name, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	f.t.Helper()
	var last *corev1.Pod
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		p, err := rest.Get[corev1.Pod](context.Background(), f.admin, corev1.NamespaceDefault, name)
		if err == nil {
			if last = p; cond(p) {
				return p
			}
		}
		if time.Now().After(deadline) {
			st := "none"
			if last != nil {
				b, _ := json.Marshal(last.Status)
				st = string(b)
			}
			f.t.Fatalf("timed out waiting for pod %s: %s; its status: %s", name, what, st)
		}
	}
}

// hasEvent reports whether an Event about pod name with reason and
// message was recorded.
func (f *fixture) hasEvent(name, reason, message string) bool {
	list, err := rest.List[corev1.Event](context.Background(), f.admin, corev1.NamespaceDefault, rest.ListOptions{})
	if err != nil {
		return false
	}
	for _, e := range list.Items {
		if e.InvolvedObject.Name == name && e.Reason == reason && e.Message == message {
			return true
		}
	}
	return false
}

// waitForContainer waits until the runtime has container name's attempt
// of the pod with uid, running.
func (f *fixture) waitForContainer(uid, name string, attempt uint32) *cri.ContainerStatus {
	f.t.Helper()
	var c *cri.ContainerStatus
	f.waitFor(fmt.Sprintf("container %s attempt %d running", name, attempt), func() bool {
		var ok bool
		c, ok = f.runtime.container(uid, name, attempt)
		return ok && c.State == cri.ContainerState_CONTAINER_RUNNING
	})
	return c
}

// statusOf is the status of container name in st (init or not).
func statusOf(st corev1.PodStatus, name string) (corev1.ContainerStatus, bool) {
	for _, cs := range append(append([]corev1.ContainerStatus{}, st.InitContainerStatuses...), st.ContainerStatuses...) {
		if cs.Name == name {
			return cs, true
		}
	}
	return corev1.ContainerStatus{}, false
}

// waitingReason is container name's waiting reason in st, if it waits.
func waitingReason(st corev1.PodStatus, name string) string {
	if cs, ok := statusOf(st, name); ok && cs.State.Waiting != nil {
		return cs.State.Waiting.Reason
	}
	return ""
}

func busyboxPod(name string, policy corev1.RestartPolicy, containers ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.RestartPolicy = policy
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "busybox:1.36",
			Command: []string{"sh", "-c", "sleep 3600"}})
	}
	return p
}
