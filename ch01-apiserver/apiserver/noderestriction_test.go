package apiserver

import (
	"context"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/auth"
)

func TestNodeRestriction(t *testing.T) {
	s := testServer(t)
	ctx := context.Background()
	mustEnsure(t, s,
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-2",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}})
	node1 := &auth.UserInfo{Name: "system:node:node-1", Groups: []string{auth.GroupNodes, auth.GroupAuthenticated}}
	podsRes, nodesRes := coreResource("pods"), coreResource("nodes")
	q := &request{res: podsRes, info: &RequestInfo{Verb: "delete", Namespace: "default", Name: "theirs"}, user: node1}
	if err := s.admitDelete(ctx, q, "default", "theirs"); err == nil || err.Error() != `pods "theirs" is forbidden: node "node-1" can only delete pods with spec.nodeName set to itself` {
		t.Errorf("delete their pod: %v", err)
	}
	old, _ := s.getObject(ctx, nodesRes, "", "node-2")
	n := metav1.DeepCopy(old.(*corev1.Node))
	n.Labels = map[string]string{"role": "db"}
	q = &request{res: nodesRes, info: &RequestInfo{Verb: "update", Name: "node-2"}, user: node1}
	if err := s.admitNodeRestriction(ctx, q, n, old); err == nil || err.Error() != `nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"` {
		t.Errorf("label another node: %v", err)
	}
	own := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"node-restriction.kubernetes.io/x": "y"}}}
	q = &request{res: nodesRes, info: &RequestInfo{Verb: "create"}, user: node1}
	if err := s.admitNodeRestriction(ctx, q, own, nil); err == nil || err.Error() != `nodes "node-1" is forbidden: node "node-1" is not allowed to set the following labels: node-restriction.kubernetes.io/x` {
		t.Errorf("restricted label: %v", err)
	}
	own.Labels = map[string]string{"kubernetes.io/hostname": "node-1", "example.com/rack": "r1"}
	if err := s.admitNodeRestriction(ctx, q, own, nil); err != nil {
		t.Errorf("own node: %v", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-1"}}
	q = &request{res: podsRes, info: &RequestInfo{Verb: "create", Namespace: "default"}, user: node1}
	if err := s.admitNodeRestriction(ctx, q, pod, nil); err == nil || err.Error() != `pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods` {
		t.Errorf("non-mirror pod: %v", err)
	}
}
