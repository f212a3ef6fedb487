package controllermanager

import (
	"flag"
	"strings"
	"testing"
	"time"
)

// TestIsControllerEnabled: upstream's --controllers semantics.
func TestIsControllerEnabled(t *testing.T) {
	tests := []struct {
		name              string
		disabledByDefault bool
		controllers       []string
		want              bool
	}{
		{"deployment", false, []string{"*"}, true},
		{"deployment", false, []string{"*", "-deployment"}, false},
		{"deployment", false, []string{"-deployment", "*"}, false},
		{"deployment", false, []string{"replicaset"}, false}, // no star: only what is named
		{"deployment", false, []string{"deployment"}, true},
		{"bootstrap-signer-controller", true, []string{"*"}, false},
		{"bootstrap-signer-controller", true, []string{"*", "bootstrap-signer-controller"}, true},
	}
	for _, tc := range tests {
		if got := IsControllerEnabled(tc.name, tc.disabledByDefault, tc.controllers); got != tc.want {
			t.Errorf("IsControllerEnabled(%s, %v, %v) = %v", tc.name, tc.disabledByDefault, tc.controllers, got)
		}
	}
}

func TestFlags(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("kcm", flag.ContinueOnError)
	c.AddFlags(fs)
	if err := fs.Parse([]string{"--controllers=*,-replicaset", "--concurrent-deployment-syncs=7"}); err != nil {
		t.Fatal(err)
	}
	if c.NodeMonitorGracePeriod != 50*time.Second || c.NodeMonitorPeriod != 5*time.Second {
		t.Errorf("node monitor defaults: %v %v", c.NodeMonitorGracePeriod, c.NodeMonitorPeriod)
	}
	if c.Concurrency["concurrent-deployment-syncs"] != 7 || c.Concurrency["concurrent-replicaset-syncs"] != 5 {
		t.Errorf("concurrency: %v", c.Concurrency)
	}
	var names []string
	for _, d := range c.Enabled() {
		names = append(names, d.Name)
	}
	if len(names) != len(Descriptors())-1 {
		t.Errorf("enabled with *,-replicaset: %v", names)
	}
	for _, n := range names {
		if n == "replicaset" {
			t.Error("replicaset enabled despite -replicaset")
		}
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	c.Controllers = []string{"*", "-frobnicator"}
	if err := c.Validate(); err == nil || err.Error() != `"frobnicator" is not in the list of known controllers` {
		t.Errorf("unknown controller: %v", err)
	}
}

// TestOnByDefault: the controllers upstream runs by default run here too
// with "*", under upstream's names, and --concurrent-rc-syncs sets the
// ReplicationController workers.
func TestOnByDefault(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("kcm", flag.ContinueOnError)
	c.AddFlags(fs)
	if err := fs.Parse([]string{"--concurrent-rc-syncs=3"}); err != nil {
		t.Fatal(err)
	}
	enabled := map[string]bool{}
	for _, n := range c.Names() {
		enabled[n] = true
	}
	for _, n := range []string{"replicationcontroller", "disruption", "endpointslice-mirroring"} {
		if !enabled[n] {
			t.Errorf("%s not enabled by default (enabled: %v)", n, c.Names())
		}
	}
	if c.Concurrency["concurrent-rc-syncs"] != 3 || c.Concurrency["mirroring-concurrent-service-endpoint-syncs"] != 5 {
		t.Errorf("concurrency: %v", c.Concurrency)
	}
}

// The horizontal pod autoscaler's flags, and the three controllers under
// both of upstream's names.
func TestHPAFlagsAndNames(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("kcm", flag.ContinueOnError)
	c.AddFlags(fs)
	if err := fs.Parse([]string{"--horizontal-pod-autoscaler-tolerance=0.2", "--concurrent-horizontal-pod-autoscaler-syncs=3"}); err != nil {
		t.Fatal(err)
	}
	if c.HPA.SyncPeriod != 15*time.Second || c.HPA.Tolerance != 0.2 || c.HPA.DownscaleStabilisationWindow != 5*time.Minute ||
		c.HPA.CPUInitializationPeriod != 5*time.Minute || c.HPA.DelayOfInitialReadinessStatus != 30*time.Second {
		t.Errorf("hpa options %+v", c.HPA)
	}
	if c.Concurrency["concurrent-horizontal-pod-autoscaler-syncs"] != 3 || c.Concurrency["concurrent-ephemeralvolume-syncs"] != 5 {
		t.Errorf("concurrency %v", c.Concurrency)
	}
	for _, names := range [][]string{
		{"horizontalpodautoscaling", "horizontal-pod-autoscaler-controller"},
		{"clusterrole-aggregation", "clusterrole-aggregation-controller"},
		{"ephemeral-volume", "ephemeral-volume-controller"},
	} {
		if !Has(names[0]) {
			t.Errorf("%s not implemented", names[0])
		}
		for _, n := range names {
			c.Controllers = []string{n}
			if err := c.Validate(); err != nil {
				t.Error(err)
			}
			if e := c.Enabled(); len(e) != 1 || e[0].Name != names[0] {
				t.Errorf("--controllers=%s enables %v", n, e)
			}
		}
	}
	if u := fs.Lookup("controllers").Usage; !strings.Contains(u, "All controllers: ") || !strings.Contains(u, "horizontalpodautoscaling") {
		t.Errorf("--controllers usage: %s", u)
	}
}
