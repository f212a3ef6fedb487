package ingress_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/record"
	"kubik/ch07-kube-proxy/ingress"
	"kubik/internal/testenv"
)

// TestMain removes the chapter binaries the tests built.
func TestMain(m *testing.M) { testenv.Main(m) }

func ptr[T any](v T) *T { return &v }

// TestAgainstAPIServer runs the controller's informers and status writer
// against the chapter 1 apiserver: an Ingress of another class is
// ignored, one without a class is ours through the default IngressClass
// (which the apiserver's admission writes into it), its route follows the
// EndpointSlice, the status gets the node IP of the controller's running
// pod, and a missing TLS Secret becomes a Warning Event.
func TestAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 1 apiserver")
	}
	cluster := testenv.Start(t, testenv.Build(t, "kubik/ch01-apiserver"), testenv.Options{})
	c, err := rest.New(cluster.Kubeconfig, "ingress-test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.DiscardHandler)

	must(rest.Create(ctx, c, &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "kubik",
		Annotations: map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}},
		Spec: networkingv1.IngressClassSpec{Controller: ingress.DefaultControllerName}}))
	must(rest.Create(ctx, c, &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}))
	must(rest.Create(ctx, c, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}))
	rule := func(host string) []networkingv1.IngressRule {
		return []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: ptr(networkingv1.PathTypePrefix),
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}
	}
	must(rest.Create(ctx, c, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ours"},
		Spec: networkingv1.IngressSpec{Rules: rule("ours.example"),
			TLS: []networkingv1.IngressTLS{{Hosts: []string{"ours.example"}, SecretName: "missing"}}}}))
	must(rest.Create(ctx, c, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "theirs"},
		Spec: networkingv1.IngressSpec{IngressClassName: ptr("nginx"), Rules: rule("theirs.example")}}))
	// The controller's pod, running on a node at 10.240.9.11.
	pod, err := rest.Create(ctx, c, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "controller",
		Labels: map[string]string{"app": "ingress"}}, Spec: corev1.PodSpec{NodeName: "node-1",
		Containers: []corev1.Container{{Name: "c", Image: "kubik.local/ingress-controller:1.0"}}}})
	must(pod, err)
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "10.240.9.11"}
	must(rest.UpdateStatus(ctx, c, pod))

	proxy, err := ingress.NewProxy(log)
	if err != nil {
		t.Fatal(err)
	}
	recorder := record.NewRecorder(c, "ingress-controller", log)
	go recorder.Run(ctx)
	status := ingress.NewStatusWriter(c, "default", "app=ingress", log)
	ctrl := ingress.NewController(ingress.Config{Client: c, ControllerName: ingress.DefaultControllerName, Proxy: proxy,
		Status: status, Recorder: recorder, Logger: log})
	status.Ingresses = ctrl.Ingresses
	go ctrl.Run(ctx)
	go status.Run(ctx)

	route := func(host string) string {
		r, ok := proxy.Table().Match(host, "/")
		if !ok {
			return "404"
		}
		if len(r.Backend.Endpoints) == 0 {
			return r.Backend.Err
		}
		return r.Ingress + " " + r.Backend.Endpoints[0]
	}
	testenv.Eventually(t, "the route without endpoints", 30*time.Second, func() (string, bool) {
		got := route("ours.example")
		return got, got == "service default/web port 80 has no ready endpoints"
	})
	if got := route("theirs.example"); got != "404" {
		t.Errorf("an Ingress of another class: %s", got)
	}
	must(rest.Create(ctx, c, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-abc",
		Labels: map[string]string{discoveryv1.LabelServiceName: "web"}}, AddressType: discoveryv1.AddressTypeIPv4,
		Ports:     []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8080)), Protocol: ptr(corev1.ProtocolTCP)}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.5"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}}}))
	testenv.Eventually(t, "the route to the endpoint", 30*time.Second, func() (string, bool) {
		got := route("ours.example")
		return got, got == "default/ours 10.244.1.5:8080"
	})
	testenv.Eventually(t, "the status", 30*time.Second, func() (string, bool) {
		ing, err := rest.Get[networkingv1.Ingress](ctx, c, "default", "ours")
		if err != nil {
			return err.Error(), false
		}
		lb := ing.Status.LoadBalancer.Ingress
		return ing.ResourceVersion, len(lb) == 1 && lb[0].IP == "10.240.9.11"
	})
	if ing, err := rest.Get[networkingv1.Ingress](ctx, c, "default", "theirs"); err != nil || len(ing.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("another class's Ingress got a status: %v %v", ing, err)
	}
	testenv.Eventually(t, "the Warning event", 30*time.Second, func() (string, bool) {
		evs, err := rest.List[corev1.Event](ctx, c, "default", rest.ListOptions{})
		if err != nil {
			return err.Error(), false
		}
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == "ours" && e.Reason == "SecretNotFound" && e.Type == corev1.EventTypeWarning {
				return e.Message, true
			}
		}
		return "", false
	})
}
