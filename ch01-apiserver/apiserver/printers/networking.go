package printers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/apiserver/selection"
)

// Ingresses, IngressClasses and NetworkPolicies: upstream's printIngress,
// printIngressClass and printNetworkPolicy.

var ingressPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Class", "string", "The name of the IngressClass resource that should be used for additional configuration"),
		column("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
		column("Address", "string", "Address is a list containing ingress points for the load-balancer"),
		column("Ports", "string", "Ports of TLS configurations that open"),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		ing := obj.(*networkingv1.Ingress)
		class := "<none>"
		if ing.Spec.IngressClassName != nil {
			class = *ing.Spec.IngressClassName
		}
		ports := "80"
		if len(ing.Spec.TLS) != 0 {
			ports = "80, 443"
		}
		return []any{ing.Name, class, formatIngressHosts(ing.Spec.Rules), ingressAddresses(ing.Status.LoadBalancer),
			ports, age(ing.CreationTimestamp, now)}, nil
	},
}

// formatIngressHosts is upstream's formatHosts: at most three hosts, "*"
// when no rule names one.
func formatIngressHosts(rules []networkingv1.IngressRule) string {
	const max = 3
	var list []string
	more := false
	for _, r := range rules {
		if len(list) == max {
			more = true
		}
		if !more && r.Host != "" {
			list = append(list, r.Host)
		}
	}
	if len(list) == 0 {
		return "*"
	}
	if more {
		return fmt.Sprintf("%s + %d more...", strings.Join(list, ","), len(rules)-max)
	}
	return strings.Join(list, ",")
}

// ingressAddresses is ingressLoadBalancerStatusStringer in its wide form
// (the server renders wide tables): the sorted, distinct IPs or hostnames.
func ingressAddresses(s networkingv1.IngressLoadBalancerStatus) string {
	seen := map[string]bool{}
	var out []string
	for _, in := range s.Ingress {
		v := in.IP
		if v == "" {
			v = in.Hostname
		}
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

var ingressClassPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Controller", "string", "Controller that is responsible for handling this class"),
		column("Parameters", "string", "A reference to a resource with additional parameters"),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		ic := obj.(*networkingv1.IngressClass)
		params := "<none>"
		if p := ic.Spec.Parameters; p != nil {
			params = p.Kind
			if p.APIGroup != nil {
				params += "." + *p.APIGroup
			}
			params += "/" + p.Name
		}
		return []any{ic.Name, ic.Spec.Controller, params, age(ic.CreationTimestamp, now)}, nil
	},
}

var networkPolicyPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Pod-Selector", "string", doc("extensions/v1beta1 NetworkPolicySpec.podSelector")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		np := obj.(*networkingv1.NetworkPolicy)
		return []any{np.Name, selection.FormatLabelSelector(&np.Spec.PodSelector), age(np.CreationTimestamp, now)}, nil
	},
}

// ServiceCIDRs: upstream's printServiceCIDR, the CIDRs comma-separated.
var serviceCIDRPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("CIDRs", "string", doc("networking/v1 ServiceCIDRSpec.cidrs")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		sc := obj.(*networkingv1.ServiceCIDR)
		return []any{sc.Name, strings.Join(sc.Spec.CIDRs, ","), age(sc.CreationTimestamp, now)}, nil
	},
}

// IPAddresses: upstream's printIPAddress. Its rows carry an age cell that
// no column names, so kubectl never shows it; kept as upstream sends it.
var ipAddressPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("ParentRef", "string", doc("networking/v1 IPAddressSpec.parentRef")),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		ip := obj.(*networkingv1.IPAddress)
		parent := "<none>"
		if ref := ip.Spec.ParentRef; ref != nil {
			parent = strings.ToLower(ref.Resource)
			if ref.Group != "" {
				parent += "." + strings.ToLower(ref.Group)
			}
			if ref.Namespace != "" {
				parent += "/" + ref.Namespace
			}
			parent += "/" + ref.Name
		}
		return []any{ip.Name, parent, age(ip.CreationTimestamp, now)}, nil
	},
}
