package controllertest

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// ServicePod creates a pod labelled app=<app> on node with a container port
// named "http" = port, and reports it Running with ip (ready or not), as a
// kubelet would.
func (e *Env) ServicePod(t *testing.T, name, app, node, ip string, port int32, ready bool) *corev1.Pod {
	t.Helper()
	p, err := rest.Create(e.Ctx, e.Admin, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Now()}}}
	if p, err = rest.UpdateStatus(e.Ctx, e.Admin, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// Service creates a ClusterIP Service selecting app=<app> with port 80 →
// targetPort "http".
func (e *Env) Service(t *testing.T, name, app string) *corev1.Service {
	t.Helper()
	s, err := rest.Create(e.Ctx, e.Admin, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"team": "a"}},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": app},
			Ports: []corev1.ServicePort{{Name: "web", Port: 80, TargetPort: intstr.FromString("http")}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
