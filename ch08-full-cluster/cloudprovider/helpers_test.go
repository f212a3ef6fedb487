package cloudprovider

import (
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

func TestGetLoadBalancerSourceRanges(t *testing.T) {
	svc := func(spec []string, annotation string) *corev1.Service {
		s := &corev1.Service{Spec: corev1.ServiceSpec{LoadBalancerSourceRanges: spec}}
		if annotation != "" {
			s.ObjectMeta = metav1.ObjectMeta{Annotations: map[string]string{AnnotationLoadBalancerSourceRangesKey: annotation}}
		}
		return s
	}
	for _, tc := range []struct {
		svc      *corev1.Service
		want     string
		allowAll bool
		err      string
	}{
		{svc(nil, ""), "[0.0.0.0/0]", true, ""},
		{svc([]string{"10.0.0.0/8", " 192.168.1.7/16"}, "1.2.3.4/32"), "[10.0.0.0/8 192.168.0.0/16]", false, ""},
		{svc(nil, "10.0.0.0/8, 172.16.0.0/12"), "[10.0.0.0/8 172.16.0.0/12]", false, ""},
		{svc([]string{"10.0.0.0"}, ""), "", false, "service.Spec.LoadBalancerSourceRanges: [10.0.0.0] is not valid"},
		{svc(nil, "nonsense"), "", false, "service.beta.kubernetes.io/load-balancer-source-ranges: nonsense is not valid"},
	} {
		got, err := GetLoadBalancerSourceRanges(tc.svc)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want %q", tc.svc.Spec, err, tc.err)
			}
			continue
		}
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if err != nil || "["+strings.Join(s, " ")+"]" != tc.want || IsAllowAll(got) != tc.allowAll {
			t.Errorf("%+v: %v %v, want %s", tc.svc.Spec, got, err, tc.want)
		}
	}
}

func TestDefaultLoadBalancerName(t *testing.T) {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{UID: "9c1f3e5a-7b2d-4c8e-a1f0-123456789abc"}}
	if got := DefaultLoadBalancerName(s); got != "a9c1f3e5a7b2d4c8ea1f0123456789ab" {
		t.Errorf("got %q", got)
	}
}
