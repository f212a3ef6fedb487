package plugins

import (
	"context"
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// ImageLocality prefers nodes that already have the pod's container images
// (node.status.images, reported by the kubelet): less to pull, a faster
// start. Each image present counts with its size, scaled by the share of
// nodes that have it, so that an image present on one node only does not
// pull every pod there (the "node heating problem"). The sum is mapped to
// 0..100 between 23 MB and 1000 MB per container. Upstream:
// plugins/imagelocality.
type ImageLocality struct{}

// The score's bounds, upstream's: most images on Docker Hub are between
// these sizes.
const (
	mb                    int64 = 1024 * 1024
	minThreshold          int64 = 23 * mb
	maxContainerThreshold int64 = 1000 * mb
)

const ilPreScoreStateKey = "PreScoreImageLocality"

func (ImageLocality) Name() string { return "ImageLocality" }

// ilPreScoreState: the pod's image names (normalized, one per container,
// init containers first), how many nodes have each, and the number of
// nodes.
type ilPreScoreState struct {
	images        []string
	numNodes      map[string]int
	totalNumNodes int
}

// PreScore normalizes the pod's image names and counts the nodes having
// each. When no feasible node has any of them every score would be 0:
// Skip (the cost for hollow nodes, which report no images, is one length
// check per node).
func (ImageLocality) PreScore(_ context.Context, state *framework.CycleState, pod *corev1.Pod, filtered []*framework.NodeInfo) *framework.Status {
	images := make([]string, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			images = append(images, normalizedImageName(c.Image))
		}
	}
	if !anyNodeHasImage(filtered, images) {
		return framework.NewStatus(framework.Skip)
	}
	allNodes := framework.AllNodes(state, filtered)
	s := &ilPreScoreState{images: images, numNodes: map[string]int{}, totalNumNodes: len(allNodes)}
	for _, img := range images {
		if _, done := s.numNodes[img]; done {
			continue
		}
		for _, n := range allNodes {
			if _, ok := n.ImageSizes[img]; ok {
				s.numNodes[img]++
			}
		}
	}
	state.Write(ilPreScoreStateKey, s)
	return nil
}

func anyNodeHasImage(nodes []*framework.NodeInfo, images []string) bool {
	for _, n := range nodes {
		if len(n.ImageSizes) == 0 {
			continue
		}
		for _, img := range images {
			if _, ok := n.ImageSizes[img]; ok {
				return true
			}
		}
	}
	return false
}

// Score: the sum over the pod's containers of size * (nodes with the
// image / all nodes) for the images the node has, mapped to 0..100.
func (ImageLocality) Score(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	v, ok := state.Read(ilPreScoreStateKey)
	if !ok {
		return 0, framework.AsStatus(fmt.Errorf("error reading %q from cycleState: not found", ilPreScoreStateKey))
	}
	s := v.(*ilPreScoreState)
	var sum int64
	for _, img := range s.images {
		if size, ok := n.ImageSizes[img]; ok {
			sum += scaledImageScore(size, s.numNodes[img], s.totalNumNodes)
		}
	}
	return calculatePriority(sum, len(s.images)), nil
}

// scaledImageScore: the image's size times the share of nodes having it.
func scaledImageScore(size int64, numNodes, totalNumNodes int) int64 {
	spread := float64(numNodes) / float64(totalNumNodes)
	return int64(float64(size) * spread)
}

// calculatePriority maps sumScores from [23 MB, 1000 MB * containers] to
// [0, 100].
func calculatePriority(sumScores int64, numContainers int) int64 {
	maxThreshold := maxContainerThreshold * int64(numContainers)
	if sumScores < minThreshold {
		sumScores = minThreshold
	} else if sumScores > maxThreshold {
		sumScores = maxThreshold
	}
	return framework.MaxNodeScore * (sumScores - minThreshold) / (maxThreshold - minThreshold)
}

// normalizedImageName adds ":latest" to a name without a tag, as upstream
// (a ':' after the last '/' is a tag; in "host:5000/app" it is a port).
// It does no more than that, like upstream: "nginx" becomes "nginx:latest"
// and does not match a node that lists only "docker.io/library/nginx:latest"
// (upstream's TODO about registries).
func normalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}
