package kubelet

// $(VAR) references in a container's command, args and env values, as
// upstream expands them (third_party/forked/golang/expansion, used by
// makeEnvironmentVariables and ExpandContainerCommandAndArgs in
// pkg/kubelet): $(VAR) becomes VAR's value when VAR is defined — for an
// env value, earlier in the list or by a Service —, $$ is a literal $
// (so $$(VAR) stays $(VAR)), and a reference to an undefined variable is
// left as it is. The shell's $VAR is not touched: it is the shell's.

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// MappingFuncFor returns a mapping for Expand that looks a name up in each
// context in turn and keeps $(name) when none has it.
func MappingFuncFor(context ...map[string]string) func(string) string {
	return func(name string) string {
		for _, vars := range context {
			if v, ok := vars[name]; ok {
				return v
			}
		}
		return "$(" + name + ")"
	}
}

// Expand replaces the $(VAR) references of input using mapping.
func Expand(input string, mapping func(string) string) string {
	var buf strings.Builder
	checkpoint := 0
	for cursor := 0; cursor < len(input); cursor++ {
		if input[cursor] == '$' && cursor+1 < len(input) {
			buf.WriteString(input[checkpoint:cursor])
			read, isVar, advance := tryReadVariableName(input[cursor+1:])
			if isVar {
				buf.WriteString(mapping(read))
			} else {
				buf.WriteString(read)
			}
			cursor += advance
			checkpoint = cursor + 1
		}
	}
	return buf.String() + input[checkpoint:]
}

// tryReadVariableName reads what follows a '$': the name of a complete
// $(name) reference (isVar), or the text to copy as it is; and how many
// bytes it consumed.
func tryReadVariableName(input string) (string, bool, int) {
	r, size := utf8.DecodeRuneInString(input)
	switch r {
	case '$': // $$: an escaped operator
		return input[0:size], false, size
	case '(':
		for i := 1; i < len(input); i++ {
			if input[i] == ')' {
				return input[1:i], true, i + 1
			}
		}
		return "$(", false, 1 // incomplete: copied as it is
	default: // $ not followed by ( : not ours
		return "$" + string(r), false, size
	}
}

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
	mapping := MappingFuncFor(vars)
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = Expand(s, mapping)
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
	return Expand(value, MappingFuncFor(vars, serviceEnv))
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
