// Package fieldpath reads the pod fields the downward API selects — in a
// downwardAPI volume and in an env var's fieldRef — as upstream's
// pkg/fieldpath does.
package fieldpath

import (
	"fmt"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
)

// ExtractFieldPathAsString is upstream's ExtractFieldPathAsString for the
// metadata fields: name, namespace, uid, labels and annotations (all of
// them as key="value" lines sorted by key, or one by subscript:
// metadata.labels['app']).
func ExtractFieldPathAsString(pod *corev1.Pod, fieldPath string) (string, error) {
	if path, key, ok := splitMaybeSubscriptedPath(fieldPath); ok {
		switch path {
		case "metadata.labels":
			return pod.Labels[key], nil
		case "metadata.annotations":
			return pod.Annotations[key], nil
		}
		return "", fmt.Errorf("fieldPath %q does not support subscript", fieldPath)
	}
	switch fieldPath {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return pod.UID, nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	}
	return "", fmt.Errorf("unsupported fieldPath: %v", fieldPath)
}

// splitMaybeSubscriptedPath splits metadata.labels['app'] into
// metadata.labels and app; ok is false for a path without a subscript
// (upstream's SplitMaybeSubscriptedPath).
func splitMaybeSubscriptedPath(fieldPath string) (path, key string, ok bool) {
	path, rest, found := strings.Cut(fieldPath, "['")
	if !found || !strings.HasSuffix(rest, "']") {
		return "", "", false
	}
	return path, strings.TrimSuffix(rest, "']"), true
}

// formatMap writes m as key="value" lines sorted by key (upstream's
// FormatMap).
func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s=%q", k, m[k])
	}
	return b.String()
}
