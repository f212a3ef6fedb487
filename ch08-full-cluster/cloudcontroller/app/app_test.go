package app

import (
	"context"
	"flag"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/cloudcontroller"
	"kubik/ch08-full-cluster/cloudprovider"
	"kubik/ch08-full-cluster/cloudprovider/fake"
	"kubik/internal/controllertest"
	"kubik/internal/testenv"
)

func parse(t *testing.T, args ...string) *Config {
	t.Helper()
	var c Config
	fs := flag.NewFlagSet("cloud-controller-manager", flag.ContinueOnError)
	c.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &c
}

// TestFlags: upstream's defaults, and --controllers with names and aliases.
func TestFlags(t *testing.T) {
	c := parse(t)
	if !c.LeaderElect || !c.ConfigureCloudRoutes || c.AllocateNodeCIDRs || c.ClusterName != "kubernetes" ||
		c.RouteReconciliationPeriod != 10*time.Second || c.NodeMonitorPeriod != 5*time.Second ||
		c.NodeStatusUpdateFrequency != 5*time.Minute || c.ConcurrentServiceSyncs != 1 || c.KubeAPIQPS != 20 || c.KubeAPIBurst != 30 {
		t.Errorf("defaults: %+v", c)
	}
	if err := c.Validate(); err == nil || err.Error() != "--cloud-provider cannot be empty" {
		t.Errorf("no --cloud-provider: %v", err)
	}
	c = parse(t, "--cloud-provider=kubik", "--controllers=*,-route,cloud-node")
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Controllers, []string{"*", "-route", "cloud-node"}) {
		t.Errorf("controllers %v", c.Controllers)
	}
	c = parse(t, "--cloud-provider=kubik", "--controllers=service,frobnicator")
	if err := c.Validate(); err == nil || err.Error() != `"frobnicator" is not in the list of known controllers` {
		t.Errorf("unknown controller: %v", err)
	}
	if _, err := processCIDRs("10.244.0.0/16,10.245.0.0/16"); err == nil || !strings.Contains(err.Error(), "not configured as dual stack") {
		t.Errorf("two IPv4 cluster CIDRs: %v", err)
	}
	if _, err := processCIDRs(""); err == nil || !strings.Contains(err.Error(), `failed to parse cidr value:""`) {
		t.Errorf("no cluster CIDR: %v", err)
	}
}

var testCloud = &fake.Cloud{ExternalIP: "10.240.8.200", ExistsByProviderID: true}

func init() {
	cloudprovider.RegisterCloudProvider("fake-app-test", func(io.Reader) (cloudprovider.Interface, error) { return testCloud, nil })
}

// TestRun: the manager, elected through its Lease, runs the service
// controller against the cloud: a LoadBalancer Service gets its address.
// The route controller is off (--configure-cloud-routes=false), and so is
// the node IPAM controller (no --allocate-node-cidrs): the others run.
func TestRun(t *testing.T) {
	env := controllertest.New(t)
	if err := cloudcontroller.EnsureRBAC(env.Ctx, env.Admin); err != nil {
		t.Fatal(err)
	}
	cfg := parse(t, "--cloud-provider=fake-app-test", "--configure-cloud-routes=false")
	cfg.Kubeconfig = env.Kubeconfig(t, cloudcontroller.Identity)
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, *cfg) }()
	stop := sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() { stop() })

	svc, err := rest.Create(env.Ctx, env.Admin, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt(8080)}}}})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "EXTERNAL-IP", controllertest.Timeout, func() (string, bool) {
		s, err := rest.Get[corev1.Service](env.Ctx, env.Admin, "default", svc.Name)
		if err != nil {
			return err.Error(), false
		}
		ing := s.Status.LoadBalancer.Ingress
		return strings.Join(s.Finalizers, ","), len(ing) == 1 && ing[0].IP == "10.240.8.200"
	})
	lease, err := rest.Get[coordinationv1.Lease](env.Ctx, env.Admin, "kube-system", LeaseName)
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("lease %+v: %v", lease, err)
	}
	if err := stop(); err != nil {
		t.Errorf("Run after cancel: %v", err)
	}
}

func TestRunNeedsAClusterCIDRForRoutes(t *testing.T) {
	env := controllertest.New(t)
	if err := cloudcontroller.EnsureRBAC(env.Ctx, env.Admin); err != nil {
		t.Fatal(err)
	}
	cfg := parse(t, "--cloud-provider=fake-app-test", "--leader-elect=false")
	cfg.Kubeconfig = env.Kubeconfig(t, cloudcontroller.Identity)
	err := Run(env.Ctx, *cfg)
	if err == nil || !strings.Contains(err.Error(), `error starting "node-route-controller": failed to parse cidr value`) {
		t.Errorf("Run: %v", err)
	}
}
