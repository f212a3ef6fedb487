package protobuf

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/nodev1"
	"kubik/ch01-apiserver/api/storagev1"
)

// TestRecordedKindsRoundTrip encodes objects a real v1.35 apiserver returned
// (as JSON) in protobuf and decodes them again: every field of the
// networking.k8s.io, autoscaling and node.k8s.io kinds survives, including
// the embedded IngressRuleValue (field 2 of IngressRule) and the
// IntOrString and Quantity fields; and the core ResourceQuota, LimitRange
// and PodTemplate, and apps/v1 ControllerRevision (its data a
// RawExtension).
func TestRecordedKindsRoundTrip(t *testing.T) {
	for file, newObj := range map[string]func() metav1.Object{
		"../../api/networkingv1/testdata/ingress-simple.json":          func() metav1.Object { return &networkingv1.Ingress{} },
		"../../api/networkingv1/testdata/ingressclass-other.json":      func() metav1.Object { return &networkingv1.IngressClass{} },
		"../../api/networkingv1/testdata/networkpolicy-web-allow.json": func() metav1.Object { return &networkingv1.NetworkPolicy{} },
		"../../api/networkingv1/testdata/servicecidr-kubernetes.json":  func() metav1.Object { return &networkingv1.ServiceCIDR{} },
		"../../api/networkingv1/testdata/ipaddress-10.96.0.1.json":     func() metav1.Object { return &networkingv1.IPAddress{} },
		"../../api/nodev1/testdata/runtimeclass-gvisor.json":           func() metav1.Object { return &nodev1.RuntimeClass{} },
		"../../api/storagev1/testdata/volumeattributesclass-gold.json": func() metav1.Object { return &storagev1.VolumeAttributesClass{} },
		"../../api/certificatesv1/testdata/csr-alice.json":             func() metav1.Object { return &certificatesv1.CertificateSigningRequest{} },
		"../../api/autoscalingv2/testdata/hpa-custom.v2.json":          func() metav1.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		"../../api/autoscalingv1/testdata/hpa-custom.v1.json":          func() metav1.Object { return &autoscalingv1.HorizontalPodAutoscaler{} },
		"../../api/corev1/testdata/resourcequota-tq.json":              func() metav1.Object { return &corev1.ResourceQuota{} },
		"../../api/corev1/testdata/limitrange-tl.json":                 func() metav1.Object { return &corev1.LimitRange{} },
		"../../api/corev1/testdata/podtemplate-two.json":               func() metav1.Object { return &corev1.PodTemplate{} },
		"../../api/appsv1/testdata/controllerrevision-web.json":        func() metav1.Object { return &appsv1.ControllerRevision{} },
	} {
		t.Run(file, func(t *testing.T) {
			doc, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in := newObj()
			if err := json.Unmarshal(doc, in); err != nil {
				t.Fatal(err)
			}
			raw, err := Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			out := newObj()
			if err := Unmarshal(raw, out); err != nil {
				t.Fatal(err)
			}
			*out.GetTypeMeta() = *in.GetTypeMeta() // the envelope carries them
			a, _ := json.Marshal(in)
			b, _ := json.Marshal(out)
			if !bytes.Equal(a, b) {
				t.Errorf("after protobuf:\n%s\nbefore:\n%s", b, a)
			}
		})
	}
}
