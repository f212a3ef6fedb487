package kubelet

// $(VAR) references in a container's command, args and env values, as
// upstream's makeEnvironmentVariables and ExpandContainerCommandAndArgs
// expand them with package expansion: an env value sees the variables
// defined earlier in the list and the Services'; command and args see
// the container's final environment.

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch05-kubelet/kubelet/expansion"
)

// expandAll expands each string of command or args with the container's
// final environment (ExpandContainerCommandAndArgs).
func expandAll(in []string, env []*cri.KeyValue) []string {
	if len(in) == 0 {
		return in
	}
	vars := map[string]string{}
	for _, e := range env {
		vars[e.Key] = string(e.Value)
	}
	mapping := expansion.MappingFuncFor(vars)
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = expansion.Expand(s, mapping)
	}
	return out
}

// expandEnvValue expands one env value with the variables set so far and
// then the Services' (makeEnvironmentVariables' mapping).
func expandEnvValue(value string, env []*cri.KeyValue, serviceEnv map[string]string) string {
	if value == "" {
		return value
	}
	vars := map[string]string{}
	for _, e := range env {
		vars[e.Key] = string(e.Value)
	}
	return expansion.Expand(value, expansion.MappingFuncFor(vars, serviceEnv))
}

// appendServiceEnv adds the Service variables the container does not set
// itself, after its own, as upstream does.
func appendServiceEnv(env []*cri.KeyValue, serviceEnv map[string]string) []*cri.KeyValue {
	set := map[string]bool{}
	for _, e := range env {
		set[e.Key] = true
	}
	for _, name := range slices.Sorted(maps.Keys(serviceEnv)) {
		if !set[name] {
			env = append(env, &cri.KeyValue{Key: name, Value: []byte(serviceEnv[name])})
		}
	}
	return env
}

// serviceEnv is upstream's getServiceEnvVarMap: the docker-link style
// variables (KUBERNETES_SERVICE_HOST, KUBERNETES_PORT_443_TCP ...) of the
// Services with a cluster IP in the pod's namespace when
// enableServiceLinks is on (the default), and always those of the
// apiserver's "kubernetes" Service in default.
func (k *Kubelet) serviceEnv(ctx context.Context, pod *corev1.Pod) (map[string]string, error) {
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	services := map[string]*corev1.Service{}
	if links {
		list, err := rest.List[corev1.Service](ctx, k.c, pod.Namespace, rest.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("failed to list services when setting up env vars")
		}
		for i := range list.Items {
			services[list.Items[i].Name] = &list.Items[i]
		}
	}
	if pod.Namespace != corev1.NamespaceDefault || !links {
		master, err := rest.Get[corev1.Service](ctx, k.c, corev1.NamespaceDefault, "kubernetes")
		if err != nil && !rest.IsNotFound(err) {
			return nil, fmt.Errorf("failed to list services when setting up env vars")
		}
		if err == nil {
			services["kubernetes"] = master // the master service wins over one of the same name
		}
	}
	m := map[string]string{}
	for _, svc := range services {
		for name, v := range ServiceEnvVars(svc) {
			m[name] = v
		}
	}
	return m, nil
}

// ServiceEnvVars are one Service's variables (upstream's envvars.FromServices):
// <NAME>_SERVICE_HOST, <NAME>_SERVICE_PORT (the first port), one
// <NAME>_SERVICE_PORT_<PORTNAME> per named port, and docker links:
// <NAME>_PORT=tcp://ip:port, <NAME>_PORT_<port>_<PROTO>{,_PROTO,_PORT,_ADDR}.
// A headless Service (clusterIP None) has none.
func ServiceEnvVars(svc *corev1.Service) map[string]string {
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == corev1.ClusterIPNone || len(svc.Spec.Ports) == 0 {
		return nil
	}
	prefix := strings.ToUpper(strings.ReplaceAll(svc.Name, "-", "_"))
	m := map[string]string{
		prefix + "_SERVICE_HOST": ip,
		prefix + "_SERVICE_PORT": strconv.Itoa(int(svc.Spec.Ports[0].Port)),
	}
	for i, sp := range svc.Spec.Ports {
		if sp.Name != "" {
			m[prefix+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(sp.Name, "-", "_"))] = strconv.Itoa(int(sp.Port))
		}
		protocol := string(corev1.ProtocolTCP)
		if sp.Protocol != "" {
			protocol = string(sp.Protocol)
		}
		url := strings.ToLower(protocol) + "://" + net.JoinHostPort(ip, strconv.Itoa(int(sp.Port)))
		if i == 0 {
			m[prefix+"_PORT"] = url
		}
		pp := fmt.Sprintf("%s_PORT_%d_%s", prefix, sp.Port, strings.ToUpper(protocol))
		m[pp] = url
		m[pp+"_PROTO"] = strings.ToLower(protocol)
		m[pp+"_PORT"] = strconv.Itoa(int(sp.Port))
		m[pp+"_ADDR"] = ip
	}
	return m
}
