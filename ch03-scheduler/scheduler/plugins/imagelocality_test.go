package plugins

import (
	"context"
	"fmt"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// Cases after upstream's image_locality_test.go, with the numbers of the
// current formula: the upper bound is 1000 MB per container (init
// containers included), each image's size is scaled by the share of nodes
// having it.
func TestImageLocalityScore(t *testing.T) {
	imageNode := func(name string, images ...corev1.ContainerImage) *corev1.Node {
		n := tnode(name)
		n.Status.Images = images
		return n
	}
	img := func(sizeMB int64, names ...string) corev1.ContainerImage {
		return corev1.ContainerImage{Names: names, SizeBytes: sizeMB * mb}
	}
	withImages := func(init []string, images ...string) *corev1.Pod {
		p := tpod("p", "")
		p.Spec.Containers = nil
		for _, i := range images {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c", Image: i})
		}
		for _, i := range init {
			p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: "i", Image: i})
		}
		return p
	}
	node403002000 := imageNode("machine1", img(40, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"),
		img(300, "gcr.io/300:latest", "gcr.io/300:v1"), img(2000, "gcr.io/2000:latest"))
	node25010 := imageNode("machine2", img(250, "gcr.io/250:latest"), img(10, "gcr.io/10:latest", "gcr.io/10:v1"))
	noImages := imageNode("machine3")
	for _, tc := range []struct {
		name  string
		pod   *corev1.Pod
		nodes []*corev1.Node
		want  string
	}{
		// machine1: 40 MB * 1/2 = 20 MB < 23 MB: 0.
		// machine2: 250 MB * 1/2 = 125 MB: 100 * (125 - 23) / (2000 - 23) = 5.
		{"two images spread on two nodes, prefer the larger image one", withImages(nil, "gcr.io/40", "gcr.io/250"),
			[]*corev1.Node{node403002000, node25010}, "machine1=0 machine2=5"},
		// machine1: (40 + 300) / 2 = 170 MB: 100 * 147 / 1977 = 7.
		{"two images on one node, prefer this node", withImages(nil, "gcr.io/40", "gcr.io/300"),
			[]*corev1.Node{node403002000, node25010}, "machine1=7 machine2=0"},
		// machine1: 2000 / 2 = 1000 MB: 100 * 977 / 1977 = 49; machine2: 5 MB: 0.
		{"a large image counts up to the pod's limit", withImages(nil, "gcr.io/10", "gcr.io/2000"),
			[]*corev1.Node{node403002000, node25010}, "machine1=49 machine2=0"},
		// machine1: 2000 / 3 = 666.7 MB: 100 * 643.7 / 1977 = 32.
		{"with a node which has no images present", withImages(nil, "gcr.io/10", "gcr.io/2000"),
			[]*corev1.Node{node403002000, node25010, noImages}, "machine1=32 machine2=0 machine3=0"},
		// One container: the limit is 1000 MB. 2000 / 2 = 1000 MB: 100.
		{"if exceed limit, use limit", withImages(nil, "gcr.io/2000"),
			[]*corev1.Node{node403002000, node25010}, "machine1=100 machine2=0"},
		// Init containers count, and raise the limit: (300 / 2) with limit
		// 2000 MB: 100 * 127 / 1977 = 6.
		{"init containers count", withImages([]string{"gcr.io/300:v1"}, "busybox"),
			[]*corev1.Node{node403002000, node25010}, "machine1=6 machine2=0"},
		// An image on every node is not scaled down: 500 MB: 100 * 477 / 977 = 48.
		{"an image on every node", withImages(nil, "registry:5000/app"),
			[]*corev1.Node{imageNode("a", img(500, "registry:5000/app:latest")), imageNode("b", img(500, "registry:5000/app:latest"))}, "a=48 b=48"},
		{"no node has the pod's images: Skip", withImages(nil, "nginx"), []*corev1.Node{node403002000, noImages}, "skip"},
		// Upstream only adds ":latest": a short name does not match the
		// fully qualified name a node may list.
		{"nginx is not docker.io/library/nginx:latest", withImages(nil, "nginx"),
			[]*corev1.Node{imageNode("a", img(500, "docker.io/library/nginx:latest")), noImages}, "skip"},
		{"nginx is nginx:latest", withImages(nil, "nginx"),
			[]*corev1.Node{imageNode("a", img(500, "nginx:latest")), noImages}, "a=23 machine3=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nis := nodeInfos(tc.nodes, nil)
			if got := scoreAll(t, imageLocalityWithoutNormalize{}, tc.pod, nis, nis); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// imageLocalityWithoutNormalize lets scoreAll drive ImageLocality, which
// has no NormalizeScore.
type imageLocalityWithoutNormalize struct{ ImageLocality }

func (imageLocalityWithoutNormalize) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *corev1.Pod, _ []framework.NodeScore) *framework.Status {
	return nil
}

func TestNormalizedImageName(t *testing.T) {
	for in, want := range map[string]string{
		"nginx":                   "nginx:latest",
		"nginx:1.27":              "nginx:1.27",
		"localhost:5000/app":      "localhost:5000/app:latest",
		"localhost:5000/app:v2":   "localhost:5000/app:v2",
		"nginx@sha256:0123abcd":   "nginx@sha256:0123abcd",
		"docker.io/library/nginx": "docker.io/library/nginx:latest",
	} {
		if got := normalizedImageName(in); got != want {
			t.Errorf("normalizedImageName(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkPluginsPodWithoutConstraints: what PodTopologySpread,
// InterPodAffinity and ImageLocality cost per scheduling cycle for a pod
// without spread constraints or affinity, on 5000 nodes (10 pods each, no
// images reported): they must return Skip after a length check per node.
func BenchmarkPluginsPodWithoutConstraints(b *testing.B) {
	var nis []*framework.NodeInfo
	for i := range 5000 {
		n := tnode(fmt.Sprintf("node-%d", i), "kubernetes.io/hostname="+fmt.Sprintf("node-%d", i))
		ni := framework.NewNodeInfo(n)
		for j := range 10 {
			ni.AddPod(tpod(fmt.Sprintf("p-%d-%d", i, j), n.Name, "app=web"))
		}
		nis = append(nis, ni)
	}
	p := tpod("p", "", "app=web")
	pts, ipa, il := &PodTopologySpread{}, &InterPodAffinity{HardPodAffinityWeight: 1}, ImageLocality{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		framework.SetAllNodes(state, nis)
		if !pts.PreFilter(ctx, state, p, nis).IsSkip() || !ipa.PreFilter(ctx, state, p, nis).IsSkip() ||
			!pts.PreScore(ctx, state, p, nis).IsSkip() || !ipa.PreScore(ctx, state, p, nis).IsSkip() || !il.PreScore(ctx, state, p, nis).IsSkip() {
			b.Fatal("expected Skip from every plugin")
		}
	}
}
