package podautoscaler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
)

// Scale is the body of a target's /scale subresource (autoscaling/v1):
// spec.replicas to read and write, status.selector to find its pods.
type Scale = autoscalingv1.Scale

// parseGroupVersion splits "apps/v1" (or "v1", the core group).
// Upstream: schema.ParseGroupVersion.
func parseGroupVersion(gv string) (group, version string, err error) {
	if gv == "" || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		i := strings.Index(gv, "/")
		return gv[:i], gv[i+1:], nil
	}
	return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
}

// resourceFor maps the target's group and kind to its resource, the
// served version of the group first. Upstream: the RESTMapper's
// RESTMappings.
func resourceFor(apiVersion, kind string) (*scheme.Resource, error) {
	group, version, err := parseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	var found *scheme.Resource
	for _, r := range scheme.Resources {
		if r.Group != group || r.Kind != kind {
			continue
		}
		if found == nil || r.Version == version {
			found = r
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no matches for kind %q in group %q", kind, group)
	}
	return found, nil
}

// scaleMapper maps a target's kind to its resource: the built-in kinds
// from the scheme, any other (a custom resource with a scale subresource)
// through discovery, read again when a kind is not found there, as
// upstream's scale client does with a deferred discovery RESTMapper that
// resets on a miss.
type scaleMapper struct {
	client *rest.Client

	mu     sync.Mutex
	mapper *controller.RESTMapper // nil until the first miss
}

// resourceFor returns the resource of apiVersion and kind.
func (m *scaleMapper) resourceFor(ctx context.Context, apiVersion, kind string) (*scheme.Resource, error) {
	if r, err := resourceFor(apiVersion, kind); err == nil {
		return r, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mapper != nil {
		if r, err := m.mapper.ResourceFor(apiVersion, kind); err == nil {
			return r, nil
		}
	}
	resources, err := controller.ServerPreferredResources(ctx, m.client)
	var partial *controller.ErrGroupDiscoveryFailed
	if err != nil && !errors.As(err, &partial) {
		return nil, err
	}
	m.mapper = controller.NewRESTMapper(resources)
	return m.mapper.ResourceFor(apiVersion, kind)
}

// getScale reads the target's scale subresource.
func (a *HorizontalController) getScale(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler) (*Scale, *scheme.Resource, error) {
	ref := hpa.Spec.ScaleTargetRef
	r, err := a.scaleMapper.resourceFor(ctx, ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, nil, err
	}
	var s Scale
	if err := a.client.Do(ctx, rest.Request{Method: http.MethodGet, Path: rest.ResourcePath(r, hpa.Namespace, ref.Name, "scale")}, &s); err != nil {
		return nil, nil, err
	}
	return &s, r, nil
}

// updateScale writes spec.replicas through the scale subresource.
func (a *HorizontalController) updateScale(ctx context.Context, r *scheme.Resource, namespace string, s *Scale) error {
	body, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return a.client.Do(ctx, rest.Request{Method: http.MethodPut, Path: rest.ResourcePath(r, namespace, s.Name, "scale"),
		Body: body}, nil)
}

// deepCopy copies an autoscaler (its cached object is shared).
func deepCopy(h *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	b, _ := json.Marshal(h)
	var out autoscalingv2.HorizontalPodAutoscaler
	_ = json.Unmarshal(b, &out)
	return &out
}
