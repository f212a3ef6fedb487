package nodeagent

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch05-kubelet/containerd"
)

// agentNetwork is the pod network as chapter 5's containerd package sees
// it: kubik-cni, and no configuration list until the agent writes one.
type agentNetwork struct{}

func (agentNetwork) ConfList(containerd.Config) ([]byte, error) { return nil, nil }
func (agentNetwork) BinDir() string                             { return binDir }

// TestContainerdNetworkReady: a real containerd 1.6 in the node's namespace
// reports NetworkReady=false while the agent waits for the node's
// podCIDR, and true once the agent has written the configuration list
// into its conf_dir (in place, which containerd's fsnotify reload sees).
func TestContainerdNetworkReady(t *testing.T) {
	f := newFabric(t, BackendHostGW)
	n := f.addNode(1, true)
	cfg := containerd.Config{Dir: t.TempDir(), Name: "kna-" + randomHex(4), PodCIDR: n.subnet.String(),
		SandboxImage: "kubik.test/pause:none", Network: agentNetwork{}, NetNS: n.ns.Path()}
	ctx := context.Background()
	d, err := containerd.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Stop(); err != nil {
			t.Errorf("stopping containerd: %v", err)
		}
	})
	conn, err := grpc.NewClient(cfg.Endpoint(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	runtime := cri.NewRuntimeServiceClient(conn)
	networkReady := func(want bool) func() error {
		return func() error {
			st, err := runtime.Status(ctx, &cri.StatusRequest{})
			if err != nil {
				return err
			}
			for _, c := range st.GetStatus().GetConditions() {
				if c.Type == cri.NetworkReady {
					if c.Status != want {
						return fmt.Errorf("NetworkReady=%v reason:%s message:%s", c.Status, c.Reason, c.Message)
					}
					return nil
				}
			}
			return fmt.Errorf("no NetworkReady condition in %v", st.GetStatus())
		}
	}

	n.cniConf = cfg.ConfListPath()
	n.startAgent()
	n.logged("waiting for the node's spec.podCIDR")
	eventually(t, "NetworkReady=false while the agent waits", networkReady(false))

	patch := fmt.Appendf(nil, `{"spec":{"podCIDR":%q}}`, n.subnet)
	if _, err := rest.Patch[corev1.Node](ctx, f.api.admin, "", n.name, rest.MergePatchType, patch, ""); err != nil {
		t.Fatal(err)
	}
	n.logged("CNI configuration written")
	eventually(t, "NetworkReady=true once the agent wrote the configuration", networkReady(true))
}
