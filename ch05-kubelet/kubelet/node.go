package kubelet

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/nodestatus"
	"kubik/ch05-kubelet/kubelet/volumemanager"
)

// registerNode creates the Node (or, after a restart, takes over the one
// that exists) and posts its status; it retries until the apiserver answers.
// It returns the readiness it posted: the heartbeat posts again when the
// runtime's changes from that.
func (k *Kubelet) registerNode(ctx context.Context) (ready bool, err error) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: k.cfg.NodeName, Labels: map[string]string{
			corev1.LabelHostname:   k.cfg.NodeName,
			corev1.LabelOSStable:   runtime.GOOS,
			corev1.LabelArchStable: runtime.GOARCH,
		}},
	}
	if k.cfg.PodCIDR != "" {
		node.Spec.PodCIDR, node.Spec.PodCIDRs = k.cfg.PodCIDR, []string{k.cfg.PodCIDR}
	}
	backoff := 200 * time.Millisecond
	for {
		_, err = rest.Create(ctx, k.c, node)
		if err == nil || rest.IsAlreadyExists(err) {
			if ready, err = k.updateNodeStatus(ctx); err == nil {
				k.log.Info("node registered", "nodeIP", k.cfg.NodeIP, "podCIDR", k.cfg.PodCIDR, "runtime", k.runtime, "ready", ready)
				return ready, nil
			}
		}
		k.log.Warn("cannot register node; retrying", "err", err, "after", backoff)
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// updateNodeStatus posts the Node's status; it returns the readiness it
// posted.
func (k *Kubelet) updateNodeStatus(ctx context.Context) (ready bool, err error) {
	for i := 0; i < nodeStatusUpdateRetry; i++ {
		if ready, err = k.tryUpdateNodeStatus(ctx); err == nil || ctx.Err() != nil {
			return ready, err
		}
	}
	return false, fmt.Errorf("update node status exceeds retry count: %w", err)
}

// nodeStatusUpdateRetry is upstream's: a conflict with another writer of
// the Node (the node agent's annotations, the node lifecycle controller's
// taints) is retried on a fresh read at once.
const nodeStatusUpdateRetry = 5

func (k *Kubelet) tryUpdateNodeStatus(ctx context.Context) (bool, error) {
	cur, err := rest.Get[corev1.Node](ctx, k.c, "", k.cfg.NodeName)
	if err != nil {
		return false, err
	}
	ready, why := k.runtimeReady(ctx)
	cur.Status = k.nodeStatus(cur.Status, ready, why, metav1.Now())
	_, err = rest.UpdateStatus(ctx, k.c, cur)
	return ready, err
}

// runtimeReady asks the CRI for RuntimeReady and NetworkReady; why is the
// message upstream's Ready=False condition carries.
func (k *Kubelet) runtimeReady(ctx context.Context) (ok bool, why string) {
	st, err := k.rt.Status(ctx, &cri.StatusRequest{})
	if err != nil {
		return false, "container runtime is down: " + err.Error()
	}
	for _, c := range st.GetStatus().GetConditions() {
		if !c.Status {
			if c.Type == cri.NetworkReady {
				return false, fmt.Sprintf("container runtime network not ready: NetworkReady=false reason:%s message:%s", c.Reason, c.Message)
			}
			return false, fmt.Sprintf("container runtime status check may not have completed yet: %s=false reason:%s message:%s", c.Type, c.Reason, c.Message)
		}
	}
	return true, ""
}

// nodeStatus is the Node's status from the machine: capacity (CPUs,
// memory, pods, the data disk), conditions, addresses and nodeInfo, built
// as chapter 3's hollow nodes build theirs (package nodestatus).
func (k *Kubelet) nodeStatus(old corev1.NodeStatus, ready bool, why string, now metav1.Time) corev1.NodeStatus {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(memTotal(), resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
	}
	if size := diskSize(k.cfg.PodLogsDir); size > 0 {
		capacity[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(size, resource.BinarySI)
	}
	readyMessage := nodestatus.ReadyMessage
	if !ready {
		readyMessage = why
	}
	return nodestatus.Status(nodestatus.Node{
		Capacity:    capacity,
		InternalIP:  k.cfg.NodeIP,
		Hostname:    k.cfg.NodeName,           // the hostname, or --hostname-override (upstream's nodeutil.GetHostname)
		KubeletPort: int32(k.cfg.Server.Port), // where the apiserver finds our API
		Info: corev1.NodeSystemInfo{
			MachineID:               readTrim("/etc/machine-id"),
			SystemUUID:              readTrim("/sys/class/dmi/id/product_uuid"),
			BootID:                  readTrim("/proc/sys/kernel/random/boot_id"),
			KernelVersion:           readTrim("/proc/sys/kernel/osrelease"),
			OSImage:                 osImage(),
			ContainerRuntimeVersion: k.runtime,
			KubeletVersion:          Version,
			OperatingSystem:         runtime.GOOS,
			Architecture:            runtime.GOARCH,
		},
		Ready:        ready,
		ReadyMessage: readyMessage,
	}, now, nodestatus.KeepTransitionTimes(old, now))
}

func readTrim(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

// machineAllocatable is what the node's volumes and downward API take
// for a container's unset CPU and memory limits: the whole machine.
func machineAllocatable() volumemanager.NodeAllocatable {
	return volumemanager.NodeAllocatable{MilliCPU: int64(runtime.NumCPU()) * 1000, Memory: memTotal()}
}

// memTotal is MemTotal of /proc/meminfo in bytes.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if f := strings.Fields(s.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// osImage is PRETTY_NAME of /etc/os-release, e.g. "Debian GNU/Linux 12 (bookworm)".
func osImage() string {
	for _, l := range strings.Split(readTrim("/etc/os-release"), "\n") {
		if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}
