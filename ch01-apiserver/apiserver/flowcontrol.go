package apiserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/flowcontrolv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/serializer"
)

// API Priority and Fairness, the objects. Every kube-apiserver creates the
// same FlowSchemas and PriorityLevelConfigurations at start (its
// "priority-and-fairness-config-producer" post-start hook) and keeps each
// FlowSchema's Dangling condition saying whether the priority level it
// names exists (the "config-consumer" half). Kubik stores and shows them
// as upstream does; the requests themselves are still bounded by the
// simpler --max-requests-inflight limits (maxinflight.go), not sorted into
// these flows and queues.

//go:embed flowcontrol_bootstrap.yaml
var flowControlBootstrap string

// The managers upstream's APF controllers write as.
const (
	apfProducer = "api-priority-and-fairness-config-producer-v1"
	apfConsumer = "api-priority-and-fairness-config-consumer-v1"
)

var (
	flowSchemaResource    = scheme.Lookup(flowcontrolv1.GroupName, "v1", "flowschemas")
	priorityLevelResource = scheme.Lookup(flowcontrolv1.GroupName, "v1", "prioritylevelconfigurations")
)

// bootstrapFlowControl creates the bootstrap objects that do not exist yet
// (marked for automatic update, as upstream marks them), priority levels
// first, and sets the FlowSchemas' Dangling conditions.
func (s *Server) bootstrapFlowControl(ctx context.Context) error {
	for _, doc := range strings.Split(flowControlBootstrap, "\n---\n") {
		data, err := serializer.YAMLToJSON([]byte(doc))
		if err != nil {
			return err
		}
		var tm metav1.TypeMeta
		if err := json.Unmarshal(data, &tm); err != nil {
			return err
		}
		res := scheme.ByKind(tm.APIVersion, tm.Kind)
		if res == nil {
			return fmt.Errorf("flowcontrol_bootstrap.yaml: unknown kind %s", tm.Kind)
		}
		obj := res.New()
		if err := json.Unmarshal(data, obj); err != nil {
			return err
		}
		obj.GetObjectMeta().Annotations = map[string]string{flowcontrolv1.AutoUpdateAnnotationKey: "true"}
		if err := s.ensureAs(ctx, apfProducer, obj); err != nil {
			return err
		}
	}
	return s.syncDangling(ctx)
}

// syncDangling sets every FlowSchema's Dangling condition from the
// priority levels that exist, writing only those that change.
func (s *Server) syncDangling(ctx context.Context) error {
	levels, _, err := s.list(ctx, priorityLevelResource, "", listOptions{})
	if err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, l := range levels {
		exists[l.GetObjectMeta().Name] = true
	}
	schemas, _, err := s.list(ctx, flowSchemaResource, "", listOptions{})
	if err != nil {
		return err
	}
	for _, o := range schemas {
		fs := o.(*flowcontrolv1.FlowSchema)
		want := danglingCondition(fs.Spec.PriorityLevelConfiguration.Name, exists[fs.Spec.PriorityLevelConfiguration.Name])
		if cur := currentDangling(fs); cur != nil && cur.Status == want.Status && cur.Reason == want.Reason && cur.Message == want.Message {
			continue
		}
		q := s.selfRequestAs(ctx, apfConsumer, flowSchemaResource, "update", "", fs.Name)
		q.info.Subresource = "status"
		_, _, err := s.update(ctx, q, fs.Name, "status", func(old metav1.Object) (metav1.Object, error) {
			fs := old.(*flowcontrolv1.FlowSchema)
			now := metav1.Now()
			var kept []flowcontrolv1.FlowSchemaCondition
			for _, c := range fs.Status.Conditions {
				if c.Type != flowcontrolv1.FlowSchemaConditionDangling {
					kept = append(kept, c)
				} else if c.Status == want.Status {
					now = c.LastTransitionTime
				}
			}
			want.LastTransitionTime = now
			fs.Status.Conditions = append(kept, want)
			return fs, nil
		}, false)
		var se *StatusError
		if err != nil && !(errors.As(err, &se) && se.Status.Code == http.StatusNotFound) {
			return fmt.Errorf("setting FlowSchema %s's Dangling condition: %w", fs.Name, err)
		}
	}
	return nil
}

func currentDangling(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaCondition {
	for i, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &fs.Status.Conditions[i]
		}
	}
	return nil
}

// danglingCondition is the condition upstream's config controller writes.
func danglingCondition(level string, exists bool) flowcontrolv1.FlowSchemaCondition {
	if exists {
		return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse,
			Reason: "Found", Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", level)}
	}
	return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionTrue,
		Reason: "NotFound", Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", level)}
}

// runFlowControlStatus keeps the Dangling conditions in step with the
// FlowSchemas and priority levels users create, change and delete.
func (s *Server) runFlowControlStatus(ctx context.Context) {
	log := s.log.With("controller", "priority-and-fairness-config")
	changed := make(chan struct{}, 1)
	for _, res := range []*scheme.Resource{flowSchemaResource, priorityLevelResource} {
		go func() {
			for ctx.Err() == nil {
				events, err := s.cfg.Storage.Watch(ctx, storagePrefix(res, ""), 0)
				if err != nil {
					select {
					case <-ctx.Done():
					case <-time.After(time.Second):
					}
					continue
				}
				for range events {
					select {
					case changed <- struct{}{}:
					default:
					}
				}
			}
		}()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			if err := s.syncDangling(ctx); err != nil && ctx.Err() == nil {
				log.Warn("updating the FlowSchemas' Dangling conditions", "err", err)
			}
		}
	}
}
