package kubelet

import (
	"testing"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
)

// TestEnvExpansionOrder: an env value sees the variables defined before
// it (upstream's TestMapReference), and the Services'; command and args
// see the final environment.
func TestEnvExpansionOrder(t *testing.T) {
	var env []*cri.KeyValue
	service := map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1"}
	for _, e := range [][2]string{{"BLU", "$(ZOO)-2"}, {"FOO", "bar"}, {"ZOO", "$(FOO)-1"}, {"API", "$(KUBERNETES_SERVICE_HOST)"}} {
		env = append(env, &cri.KeyValue{Key: e[0], Value: []byte(expandEnvValue(e[1], env, service))})
	}
	env = appendServiceEnv(env, service)
	got := map[string]string{}
	for _, e := range env {
		got[e.Key] = string(e.Value)
	}
	want := map[string]string{"BLU": "$(ZOO)-2", "FOO": "bar", "ZOO": "bar-1", "API": "10.96.0.1", "KUBERNETES_SERVICE_HOST": "10.96.0.1"}
	if len(got) != len(want) {
		t.Errorf("env = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	cmd := expandAll([]string{"sh", "-c", "echo $(FOO) $$(FOO) $(NOPE) $HOME"}, env)
	if cmd[2] != "echo bar $(FOO) $(NOPE) $HOME" {
		t.Errorf("command = %q", cmd)
	}
}

// TestServiceEnvVars: the variables of the apiserver's own Service, as a
// pod in any cluster sees them.
func TestServiceEnvVars(t *testing.T) {
	svc := &corev1.Service{}
	svc.Name = "kubernetes"
	svc.Spec.ClusterIP = "10.96.0.1"
	svc.Spec.Ports = []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}}
	got := ServiceEnvVars(svc)
	want := map[string]string{
		"KUBERNETES_SERVICE_HOST":       "10.96.0.1",
		"KUBERNETES_SERVICE_PORT":       "443",
		"KUBERNETES_SERVICE_PORT_HTTPS": "443",
		"KUBERNETES_PORT":               "tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP":       "tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP_PROTO": "tcp",
		"KUBERNETES_PORT_443_TCP_PORT":  "443",
		"KUBERNETES_PORT_443_TCP_ADDR":  "10.96.0.1",
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	svc.Spec.ClusterIP = corev1.ClusterIPNone
	if got := ServiceEnvVars(svc); len(got) != 0 {
		t.Errorf("headless: %v", got)
	}
}
