package nodeipam

// Tests in chapter 4's style: fixtures (Nodes) are written to a real
// apiserver started in the test process, the allocator's sync function is
// called directly, and what it did is read back: the requests it sent
// (a recording client, as upstream's fake clientset's actions), the Nodes'
// spec and the events.

import (
	"context"
	"flag"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/clienttest"
	"kubik/internal/controllertest"
)

type fixture struct {
	*controllertest.Env
	t   *testing.T
	rec *clienttest.Recorder
	c   *Controller
}

// newFixture starts an apiserver; the controller acts as
// system:kube-controller-manager through a recording client.
func newFixture(t *testing.T) *fixture {
	env := controllertest.New(t)
	cm, rec := env.RecordingClient(t, pki.ControllerManager)
	// The controller's informers and recorder stop before the recording
	// proxy closes (cleanups run last-in first-out): the proxy's Close
	// waits for every request, and a running informer keeps opening watches.
	ctx, cancel := context.WithCancel(env.Ctx)
	t.Cleanup(cancel)
	env.Ctx = ctx
	log := slog.New(slog.DiscardHandler)
	env.CC = &controller.ControllerContext{Client: cm, Informers: controller.NewSharedInformers(cm, log), Log: log}
	return &fixture{Env: env, t: t, rec: rec}
}

// build constructs the controller (it lists the Nodes there are now),
// starts its informer and event recorder.
func (f *fixture) build(o *Options) {
	f.t.Helper()
	c, err := NewNodeIpamController(f.CC, o)
	if err != nil {
		f.t.Fatal(err)
	}
	f.c = c
	go c.cidrAllocator.recorder.Run(f.Ctx)
	f.Start(f.t)
	f.rec.ClearActions()
}

// createNode registers a Node, with podCIDRs if given, and waits for the
// allocator's cache to have it.
func (f *fixture) createNode(name string, podCIDRs ...string) *corev1.Node {
	f.t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if len(podCIDRs) > 0 {
		n.Spec.PodCIDR, n.Spec.PodCIDRs = podCIDRs[0], podCIDRs
	}
	n, err := rest.Create(f.Ctx, f.Admin, n)
	if err != nil {
		f.t.Fatal(err)
	}
	if f.c != nil {
		f.waitCached(name, func(*corev1.Node) bool { return true })
	}
	return n
}

func (f *fixture) waitCached(name string, cond func(*corev1.Node) bool) {
	f.t.Helper()
	controllertest.Eventually(f.t, "node "+name+" in the cache", func() bool {
		n, ok := f.c.nodes.GetStore().Get("", name)
		return ok && cond(n)
	})
}

// sync runs the allocator's sync of one Node and returns the Node's
// podCIDR and podCIDRs as the apiserver has them afterwards.
func (f *fixture) sync(name string) (string, []string, error) {
	f.t.Helper()
	err := f.c.cidrAllocator.syncNode(f.Ctx, name)
	n, gerr := rest.Get[corev1.Node](f.Ctx, f.Admin, "", name)
	if gerr != nil {
		f.t.Fatal(gerr)
	}
	return n.Spec.PodCIDR, n.Spec.PodCIDRs, err
}

// allocate syncs a Node and wants it to get podCIDR.
func (f *fixture) allocate(name, want string) {
	f.t.Helper()
	podCIDR, podCIDRs, err := f.sync(name)
	if err != nil || podCIDR != want || !slices.Equal(podCIDRs, []string{want}) {
		f.t.Fatalf("%s: podCIDR %q podCIDRs %q (%v), want %s", name, podCIDR, podCIDRs, err, want)
	}
	f.waitCached(name, func(n *corev1.Node) bool { return len(n.Spec.PodCIDRs) > 0 })
}

func (f *fixture) expectWrites(want ...string) {
	f.t.Helper()
	var got []string
	for _, a := range f.rec.Writes() {
		got = append(got, a.String())
	}
	if !slices.Equal(got, want) {
		f.t.Errorf("writes %q, want %q", got, want)
	}
	f.rec.ClearActions()
}

// chapter6 are the options chapter 6 runs with.
func chapter6() *Options {
	o := DefaultOptions()
	o.AllocateNodeCIDRs = true
	return &o
}

func options(clusterCIDR string, mask int) *Options {
	o := chapter6()
	o.ClusterCIDR, o.NodeCIDRMaskSize = clusterCIDR, mask
	return o
}

// TestAllocationOrder: Nodes without podCIDR get the blocks in order, each
// with one PATCH of its spec.
func TestAllocationOrder(t *testing.T) {
	f := newFixture(t)
	f.build(chapter6())
	for i, name := range []string{"n1", "n2", "n3"} {
		f.createNode(name)
		f.allocate(name, []string{"10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"}[i])
		f.expectWrites("patch nodes " + name)
	}
	// A Node that has its block is left alone.
	if _, _, err := f.sync("n2"); err != nil {
		t.Fatal(err)
	}
	f.expectWrites()
}

// TestPatchBody: the PATCH sets spec.podCIDR and spec.podCIDRs and nothing
// else, as upstream's PatchNodeCIDRs.
func TestPatchBody(t *testing.T) {
	for _, tc := range []struct {
		cidrs []string
		want  string
	}{
		{[]string{"10.244.1.0/24"}, `{"spec":{"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24"]}}`},
		{[]string{"10.244.1.0/24", "fd00::/64"}, `{"spec":{"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24","fd00::/64"]}}`},
	} {
		if got := string(nodeCIDRPatch(tc.cidrs)); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

// TestRestartRebuild: a controller built when Nodes already have blocks
// (a restarted manager) does not hand those out again.
func TestRestartRebuild(t *testing.T) {
	f := newFixture(t)
	f.createNode("old-1", "10.244.0.0/24")
	f.createNode("old-2", "10.244.2.0/24")
	f.build(chapter6())
	f.createNode("new-1")
	f.allocate("new-1", "10.244.1.0/24")
	f.createNode("new-2")
	f.allocate("new-2", "10.244.3.0/24")
	f.expectWrites("patch nodes new-1", "patch nodes new-2")
}

// TestRestartBadPodCIDR: a Node whose podCIDR cannot be parsed, or lies
// outside the cluster CIDR, stops the controller from being built.
func TestRestartBadPodCIDR(t *testing.T) {
	for _, tc := range []struct{ cidr, want string }{
		{"10.244.1.0", "failed to parse node n1, CIDR 10.244.1.0"},
		{"10.96.0.0/24", "failed to mark cidr[10.96.0.0/24] at idx [0] as occupied for node: n1: cidr 10.96.0.0/24 is out the range of cluster cidr 10.244.0.0/16"},
	} {
		f := newFixture(t)
		f.createNode("n1", tc.cidr)
		_, err := NewNodeIpamController(f.CC, chapter6())
		if err == nil || err.Error() != tc.want {
			t.Errorf("podCIDR %s: %v, want %q", tc.cidr, err, tc.want)
		}
	}
}

// TestReleaseOnDelete: a deleted Node's block is free again (once the
// round-robin comes back to it).
func TestReleaseOnDelete(t *testing.T) {
	f := newFixture(t)
	f.build(options("10.244.0.0/23", 24)) // two blocks
	f.createNode("n1")
	f.allocate("n1", "10.244.0.0/24")
	f.createNode("n2")
	f.allocate("n2", "10.244.1.0/24")
	if err := rest.Delete[corev1.Node](f.Ctx, f.Admin, "", "n1", nil); err != nil {
		t.Fatal(err)
	}
	f.createNode("n3")
	controllertest.Eventually(t, "n3 gets n1's block", func() bool {
		podCIDR, _, err := f.sync("n3")
		return err == nil && podCIDR == "10.244.0.0/24"
	})
}

// TestExhaustion: with no block left the Node gets the CIDRNotAvailable
// event and the sync fails (the queue retries it); a block freed later is
// given to it.
func TestExhaustion(t *testing.T) {
	f := newFixture(t)
	f.build(options("10.244.0.0/24", 24)) // one block
	f.createNode("n1")
	f.allocate("n1", "10.244.0.0/24")
	f.expectWrites("patch nodes n1")
	n2 := f.createNode("n2")
	_, podCIDRs, err := f.sync("n2")
	if err == nil || len(podCIDRs) != 0 {
		t.Fatalf("full range: podCIDRs %q, err %v", podCIDRs, err)
	}
	if want := "failed to allocate cidr from cluster cidr at idx:0: CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	f.expectWrites()
	var ev corev1.Event
	controllertest.Eventually(t, "CIDRNotAvailable event", func() bool {
		list, err := rest.List[corev1.Event](f.Ctx, f.Admin, "default", rest.ListOptions{FieldSelector: "reason=CIDRNotAvailable"})
		if err != nil || len(list.Items) == 0 {
			return false
		}
		ev = list.Items[0]
		return true
	})
	if ev.Type != corev1.EventTypeNormal || ev.Message != "Node n2 status is now: CIDRNotAvailable" ||
		ev.Source.Component != "cidrAllocator" || ev.InvolvedObject.Kind != "Node" || ev.InvolvedObject.APIVersion != "v1" ||
		ev.InvolvedObject.Name != "n2" || ev.InvolvedObject.UID != n2.UID || ev.InvolvedObject.Namespace != "" {
		t.Errorf("event %+v", ev)
	}

	if err := rest.Delete[corev1.Node](f.Ctx, f.Admin, "", "n1", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "n2 gets the freed block", func() bool {
		podCIDR, _, err := f.sync("n2")
		return err == nil && podCIDR == "10.244.0.0/24"
	})
}

// TestServiceRangeExcluded: blocks inside --service-cluster-ip-range are
// never handed out.
func TestServiceRangeExcluded(t *testing.T) {
	f := newFixture(t)
	o := options("10.0.0.0/22", 24)
	o.ServiceCIDR = "10.0.1.0/24,fd00:96::/108" // the second: another family, ignored here
	f.build(o)
	f.createNode("n1")
	f.allocate("n1", "10.0.0.0/24")
	f.createNode("n2")
	f.allocate("n2", "10.0.2.0/24")

	// A Service range containing the whole cluster CIDR leaves nothing.
	f2 := newFixture(t)
	o2 := options("10.96.0.0/16", 24)
	o2.ServiceCIDR = "10.96.0.0/12"
	f2.build(o2)
	f2.createNode("n1")
	if _, podCIDRs, err := f2.sync("n1"); err == nil || len(podCIDRs) != 0 {
		t.Errorf("cluster CIDR inside the Service range: podCIDRs %q, err %v", podCIDRs, err)
	}
}

// TestDualStack: one block of each family; podCIDR is the first.
func TestDualStack(t *testing.T) {
	f := newFixture(t)
	o := chapter6()
	o.ClusterCIDR, o.NodeCIDRMaskSize, o.NodeCIDRMaskSizeIPv6 = "10.244.0.0/16,fd00:10:244::/56", 0, 64
	f.build(o)
	f.createNode("n1")
	podCIDR, podCIDRs, err := f.sync("n1")
	if err != nil || podCIDR != "10.244.0.0/24" || !slices.Equal(podCIDRs, []string{"10.244.0.0/24", "fd00:10:244::/64"}) {
		t.Errorf("podCIDR %q podCIDRs %q (%v)", podCIDR, podCIDRs, err)
	}
}

// TestStaleCache: a Node seen again before the cache shows the PATCH (its
// kubelet's first status update came in between) gets no second block.
func TestStaleCache(t *testing.T) {
	f := newFixture(t)
	f.build(chapter6())
	stale := f.createNode("n1")
	f.allocate("n1", "10.244.0.0/24")
	f.expectWrites("patch nodes n1")
	r := f.c.cidrAllocator
	fresh := r.nodeLister
	r.nodeLister = func(name string) (*corev1.Node, bool) { return stale, true }
	if err := r.syncNode(f.Ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	f.expectWrites()
	// The cache catches up: the block is n1's, the next one is free.
	r.nodeLister = fresh
	if _, _, err := f.sync("n1"); err != nil {
		t.Fatal(err)
	}
	f.createNode("n2")
	f.allocate("n2", "10.244.1.0/24")
}

// TestDisabled: without --allocate-node-cidrs the controller is built
// without looking at anything and its Run returns at once.
func TestDisabled(t *testing.T) {
	f := newFixture(t)
	c, err := NewNodeIpamController(f.CC, &Options{ClusterCIDR: "garbage"})
	if err != nil {
		t.Fatal(err)
	}
	c.Run(f.Ctx, 1)
	if a := f.rec.Actions(); len(a) != 0 {
		t.Errorf("requests %v", a)
	}
	// The flags upstream checks when it parses them fail even so.
	if _, err := NewNodeIpamController(f.CC, &Options{CIDRAllocatorType: "CloudAllocator"}); err == nil {
		t.Error("--cidr-allocator-type=CloudAllocator accepted")
	}
	if d := Descriptor(chapter6()); d.Name != "node-ipam-controller" || d.ConcurrencyFlag != "" || d.DisabledByDefault {
		t.Errorf("descriptor %+v", d)
	}
}

// TestFlagValidation: upstream's checks and messages, in upstream's order.
func TestFlagValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(o *Options)
		want string // "" : valid
	}{
		{"chapter 6", func(o *Options) {}, ""},
		{"no cluster CIDR", func(o *Options) { o.ClusterCIDR = "" },
			"invalid CIDR[0]: <nil> (invalid CIDR address: )"},
		{"garbage", func(o *Options) { o.ClusterCIDR = "10.244.0.0" },
			"invalid CIDR[0]: <nil> (invalid CIDR address: 10.244.0.0)"},
		{"garbage second", func(o *Options) { o.ClusterCIDR, o.NodeCIDRMaskSize = "10.244.0.0/16,fd00::", 0 },
			"invalid CIDR[1]: <nil> (invalid CIDR address: fd00::)"},
		{"two IPv4", func(o *Options) { o.ClusterCIDR = "10.244.0.0/16,10.245.0.0/16" },
			"len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily"},
		{"three", func(o *Options) { o.ClusterCIDR = "10.244.0.0/16,fd00::/48,10.245.0.0/16"; o.NodeCIDRMaskSize = 0 },
			"length of clusterCIDRs is:3 more than max allowed of 2"},
		{"mask shorter than the cluster's", func(o *Options) { o.NodeCIDRMaskSize = 8 },
			"Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family"},
		{"default mask, /8 fits", func(o *Options) { o.ClusterCIDR, o.NodeCIDRMaskSize = "10.0.0.0/8", 0 }, ""},
		{"default mask, /25 does not", func(o *Options) { o.ClusterCIDR, o.NodeCIDRMaskSize = "10.0.0.0/25", 0 },
			"Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family"},
		{"dual-stack with --node-cidr-mask-size", func(o *Options) { o.ClusterCIDR = "10.244.0.0/16,fd00::/48" },
			"usage of --node-cidr-mask-size is not allowed with dual-stack clusters"},
		{"dual-stack defaults", func(o *Options) { o.ClusterCIDR, o.NodeCIDRMaskSize = "10.244.0.0/16,fd00::/48", 0 }, ""},
		{"mask and ipv4 mask", func(o *Options) { o.NodeCIDRMaskSizeIPv4 = 24 },
			"usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags"},
		{"ipv4 mask on IPv6", func(o *Options) { o.ClusterCIDR, o.NodeCIDRMaskSize, o.NodeCIDRMaskSizeIPv4 = "fd00::/48", 0, 24 },
			"usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster"},
		{"ipv6 mask on IPv4", func(o *Options) { o.NodeCIDRMaskSize, o.NodeCIDRMaskSizeIPv6 = 0, 64 },
			"usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster"},
		{"IPv6 blocks too many for the bitmap", func(o *Options) { o.ClusterCIDR, o.NodeCIDRMaskSize = "fd00::/32", 0 },
			"New CIDR set failed; the node CIDR size is too big"},
		{"cloud allocator", func(o *Options) { o.CIDRAllocatorType = "CloudAllocator" },
			"built-in cloud providers are disabled. The ipam CloudAllocator is not available"},
		{"unknown allocator", func(o *Options) { o.CIDRAllocatorType = "Magic" }, "built-in cloud providers are disabled. The ipam Magic is not available"},
		{"unparsable Service range: a warning", func(o *Options) { o.ServiceCIDR = "10.96.0.0" }, ""},
		{"three Service ranges", func(o *Options) { o.ServiceCIDR = "10.96.0.0/12,fd00::/108,10.97.0.0/16" },
			"--service-cluster-ip-range can not contain more than two entries"},
		{"two IPv4 Service ranges", func(o *Options) { o.ServiceCIDR = "10.96.0.0/12,10.112.0.0/12" },
			"serviceCIDR and secondaryServiceCIDR are not dualstack (from different IPfamiles)"},
	} {
		o := chapter6()
		tc.set(o)
		err := checkFlags(o)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}

// checkFlags runs the checks of NewNodeIpamController and builds the CIDR
// sets, without an apiserver.
func checkFlags(o *Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := o.validate(slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	_, err = newCIDRSets(cfg)
	return err
}

func newFlagSet(o *Options) *flag.FlagSet {
	fs := flag.NewFlagSet("kube-controller-manager", flag.ContinueOnError)
	o.AddFlags(fs)
	return fs
}

// TestAddFlags: upstream's flag names; the zero Options are upstream's
// defaults, DefaultOptions chapter 6's but for --allocate-node-cidrs.
func TestAddFlags(t *testing.T) {
	var o Options
	fs := newFlagSet(&o)
	for name, want := range map[string]string{"allocate-node-cidrs": "false", "cluster-cidr": "", "node-cidr-mask-size": "0",
		"node-cidr-mask-size-ipv4": "0", "node-cidr-mask-size-ipv6": "0", "cidr-allocator-type": "RangeAllocator"} {
		if f := fs.Lookup(name); f == nil || f.DefValue != want {
			t.Errorf("--%s: %+v, want default %q", name, f, want)
		}
	}
	if fs.Lookup("service-cluster-ip-range") != nil {
		t.Error("--service-cluster-ip-range registered: the program has it already")
	}
	if err := fs.Parse([]string{"--allocate-node-cidrs", "--cluster-cidr=10.200.0.0/16", "--node-cidr-mask-size=26"}); err != nil {
		t.Fatal(err)
	}
	if !o.AllocateNodeCIDRs || o.ClusterCIDR != "10.200.0.0/16" || o.NodeCIDRMaskSize != 26 {
		t.Errorf("parsed %+v", o)
	}
	d := DefaultOptions()
	c6 := newFlagSet(&d)
	for name, want := range map[string]string{"allocate-node-cidrs": "false", "cluster-cidr": "10.244.0.0/16", "node-cidr-mask-size": "24"} {
		if f := c6.Lookup(name); f.DefValue != want {
			t.Errorf("chapter 6 --%s default %q, want %q", name, f.DefValue, want)
		}
	}
	if !strings.Contains(c6.Lookup("allocate-node-cidrs").Usage, "Should CIDRs for Pods be allocated") {
		t.Error("upstream's help text")
	}
}
