package volumemanager

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch05-kubelet/kubelet/fieldpath"
)

// The contents of the API-data volumes, as upstream's plugins compute
// them: pkg/volume/configmap (MakePayload), secret (MakePayload),
// downwardapi (CollectData). Pure functions of the objects, tested
// without a cluster; volume_plugins.go fetches the objects and writes the result
// with an atomicWriter.

// defaultVolumeMode is 0644, the apiserver's default for defaultMode.
const defaultVolumeMode int32 = 0o644

// configMapPayload: every key of the ConfigMap (data and binaryData) as a
// file of the same name, or only the items, each at its path. A missing
// key is an error unless the volume is optional.
func configMapPayload(items []corev1.KeyToPath, cm *corev1.ConfigMap, defaultMode *int32, optional bool) (map[string]fileProjection, error) {
	mode := modeOr(defaultMode)
	payload := map[string]fileProjection{}
	if len(items) == 0 {
		for k, v := range cm.Data {
			payload[k] = fileProjection{Data: []byte(v), Mode: mode}
		}
		for k, v := range cm.BinaryData {
			payload[k] = fileProjection{Data: v, Mode: mode}
		}
		return payload, nil
	}
	for _, it := range items {
		var data []byte
		if s, ok := cm.Data[it.Key]; ok {
			data = []byte(s)
		} else if b, ok := cm.BinaryData[it.Key]; ok {
			data = b
		} else if optional {
			continue
		} else {
			return nil, fmt.Errorf("configmap references non-existent config key: %s", it.Key)
		}
		payload[it.Path] = fileProjection{Data: data, Mode: itemMode(it.Mode, mode)}
	}
	return payload, nil
}

// secretPayload is configMapPayload for a Secret's data.
func secretPayload(items []corev1.KeyToPath, s *corev1.Secret, defaultMode *int32, optional bool) (map[string]fileProjection, error) {
	mode := modeOr(defaultMode)
	payload := map[string]fileProjection{}
	if len(items) == 0 {
		for k, v := range s.Data {
			payload[k] = fileProjection{Data: v, Mode: mode}
		}
		return payload, nil
	}
	for _, it := range items {
		data, ok := s.Data[it.Key]
		if !ok {
			if optional {
				continue
			}
			return nil, fmt.Errorf("references non-existent secret key: %s", it.Key)
		}
		payload[it.Path] = fileProjection{Data: data, Mode: itemMode(it.Mode, mode)}
	}
	return payload, nil
}

// downwardAPIPayload renders the items of a downwardAPI volume (or
// projection): pod fields and container resources, one file each.
func downwardAPIPayload(items []corev1.DownwardAPIVolumeFile, pod *corev1.Pod, node NodeAllocatable, defaultMode *int32) (map[string]fileProjection, error) {
	mode := modeOr(defaultMode)
	payload := map[string]fileProjection{}
	var errs []error
	for _, it := range items {
		var value string
		var err error
		switch {
		case it.FieldRef != nil:
			value, err = fieldpath.ExtractFieldPathAsString(pod, it.FieldRef.FieldPath)
		case it.ResourceFieldRef != nil:
			value, err = containerResourceValue(it.ResourceFieldRef, pod, node)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		payload[it.Path] = fileProjection{Data: []byte(value), Mode: itemMode(it.Mode, mode)}
	}
	return payload, aggregate(errs)
}

// containerResourceValue is upstream's ExtractContainerResourceValue with
// the node's allocatable resources standing in for unset limits: the
// value divided by the divisor (default 1), rounded up.
func containerResourceValue(fs *corev1.ResourceFieldSelector, pod *corev1.Pod, node NodeAllocatable) (string, error) {
	var c *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == fs.ContainerName {
			c = &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == fs.ContainerName {
			c = &pod.Spec.InitContainers[i]
		}
	}
	if c == nil {
		return "", fmt.Errorf("container %s not found", fs.ContainerName)
	}
	divisor := fs.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	get := func(list corev1.ResourceList, name corev1.ResourceName, def int64, milli bool) int64 {
		if q, ok := list[name]; ok {
			if milli {
				return q.MilliValue()
			}
			return q.Value()
		}
		return def
	}
	var v, d int64
	switch fs.Resource {
	case "limits.cpu":
		v, d = get(c.Resources.Limits, corev1.ResourceCPU, node.MilliCPU, true), divisor.MilliValue()
	case "requests.cpu":
		v, d = get(c.Resources.Requests, corev1.ResourceCPU, 0, true), divisor.MilliValue()
	case "limits.memory":
		v, d = get(c.Resources.Limits, corev1.ResourceMemory, node.Memory, false), divisor.Value()
	case "requests.memory":
		v, d = get(c.Resources.Requests, corev1.ResourceMemory, 0, false), divisor.Value()
	default:
		return "", fmt.Errorf("unsupported container resource : %v", fs.Resource)
	}
	if d == 0 {
		return "", fmt.Errorf("invalid divisor %s", divisor.String())
	}
	return strconv.FormatInt(int64(math.Ceil(float64(v)/float64(d))), 10), nil
}

// checkHostPathType is upstream's hostPath type check: the *OrCreate types
// create what is missing (a 0755 directory, an empty 0644 file); the
// others must find exactly that kind of file.
func checkHostPathType(path string, t corev1.HostPathType) error {
	for _, item := range strings.Split(path, "/") {
		if item == ".." {
			return fmt.Errorf("invalid HostPath `%s`: must not contain '..'", path)
		}
	}
	fi, statErr := os.Stat(path)
	exists := statErr == nil
	mode := os.FileMode(0)
	if exists {
		mode = fi.Mode()
	}
	switch t {
	case corev1.HostPathUnset:
		return nil
	case corev1.HostPathDirectoryOrCreate:
		if !exists {
			return os.MkdirAll(path, 0o755)
		}
		fallthrough
	case corev1.HostPathDirectory:
		if !exists || !mode.IsDir() {
			return fmt.Errorf("hostPath type check failed: %s is not a directory", path)
		}
	case corev1.HostPathFileOrCreate:
		if !exists {
			f, err := os.OpenFile(path, os.O_CREATE, 0o644)
			if err != nil {
				return err
			}
			return f.Close()
		}
		fallthrough
	case corev1.HostPathFile:
		if !exists || !mode.IsRegular() {
			return fmt.Errorf("hostPath type check failed: %s is not a file", path)
		}
	case corev1.HostPathSocket:
		if !exists || mode&os.ModeSocket == 0 {
			return fmt.Errorf("hostPath type check failed: %s is not a socket file", path)
		}
	case corev1.HostPathCharDev:
		if !exists || mode&os.ModeCharDevice == 0 {
			return fmt.Errorf("hostPath type check failed: %s is not a character device", path)
		}
	case corev1.HostPathBlockDev:
		if !exists || mode&os.ModeDevice == 0 || mode&os.ModeCharDevice != 0 {
			return fmt.Errorf("hostPath type check failed: %s is not a block device", path)
		}
	default:
		return fmt.Errorf("%s is an invalid volume type", t)
	}
	return nil
}

func modeOr(m *int32) int32 {
	if m == nil {
		return defaultVolumeMode
	}
	return *m
}

func itemMode(m *int32, def int32) int32 {
	if m == nil {
		return def
	}
	return *m
}

// aggregate is upstream's utilerrors.NewAggregate message: one error as
// it is, several as [a, b].
func aggregate(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New("[" + strings.Join(msgs, ", ") + "]")
}
