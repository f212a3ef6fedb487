package quota

import (
	"errors"
	"fmt"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
)

// Evaluator measures what the objects of one resource use.
type Evaluator interface {
	// GroupResource is "pods", "services", "deployments.apps".
	GroupResource() string
	// Constraints refuses an item that does not say what a quota
	// restricting the required names needs to know.
	Constraints(required []corev1.ResourceName, item any) error
	// Matches: the quota restricts a name this evaluator computes, and the
	// item matches every scope of the quota.
	Matches(q *corev1.ResourceQuota, item any) (bool, error)
	// MatchingResources are the names among input this evaluator computes.
	MatchingResources(input []corev1.ResourceName) []corev1.ResourceName
	// Usage is what the item uses.
	Usage(item any) (corev1.ResourceList, error)
	// UsageStats sums the usage of the namespace's objects that match
	// every scope.
	UsageStats(options UsageStatsOptions) (UsageStats, error)
}

// UsageStatsOptions says what UsageStats measures.
type UsageStatsOptions struct {
	Namespace string
	// Scopes select the objects counted; ScopeSelector too.
	Scopes        []corev1.ResourceQuotaScope
	ScopeSelector *corev1.ScopeSelector
	// Resources are the names measured (each reported, zero when unused).
	Resources []corev1.ResourceName
}

// UsageStats is what UsageStats measured.
type UsageStats struct {
	Used corev1.ResourceList
}

// ListFuncByNamespace lists the objects of a namespace (an error while its
// cache has not listed yet). Upstream: generic.ListFuncByNamespace.
type ListFuncByNamespace[T any] func(namespace string) ([]*T, error)

// ObjectCountQuotaResourceNameFor is count/<resource>[.<group>] of a group
// resource written "resource[.group]".
func ObjectCountQuotaResourceNameFor(groupResource string) corev1.ResourceName {
	return corev1.ResourceName("count/" + groupResource)
}

// errNoLister is UsageStats of an evaluator made without a list function
// (the admission plugin's, which measures one object at a time).
var errNoLister = errors.New("the evaluator lists no objects")

// genericEvaluator is an Evaluator over objects of type T. Upstream: the
// shape every evaluator of evaluator/core and generic/ shares.
type genericEvaluator[T any] struct {
	groupResource string
	// matches reports whether this evaluator computes a quota name.
	matches func(corev1.ResourceName) bool
	list    ListFuncByNamespace[T]
	// usage is nil for an object count: then countUsage, whatever the item.
	usage      func(*T) corev1.ResourceList
	countUsage corev1.ResourceList
	// matchesScope is nil for a resource no scope selects
	// (generic.MatchesNoScopeFunc: a scoped quota counts none of it).
	matchesScope func(corev1.ScopedResourceSelectorRequirement, *T) bool
	// constraints is nil when the resource has none.
	constraints func(required []corev1.ResourceName, item *T) error
}

func (e *genericEvaluator[T]) GroupResource() string { return e.groupResource }

func (e *genericEvaluator[T]) item(obj any) (*T, error) {
	t, ok := obj.(*T)
	if !ok {
		return nil, fmt.Errorf("quota evaluator of %s: expected *%T, got %T", e.groupResource, *new(T), obj)
	}
	return t, nil
}

func (e *genericEvaluator[T]) Constraints(required []corev1.ResourceName, obj any) error {
	if e.constraints == nil {
		return nil
	}
	t, err := e.item(obj)
	if err != nil {
		return err
	}
	return e.constraints(required, t)
}

// Matches is upstream's generic.Matches.
func (e *genericEvaluator[T]) Matches(q *corev1.ResourceQuota, obj any) (bool, error) {
	if len(e.MatchingResources(ResourceNames(q.Status.Hard))) == 0 {
		return false, nil
	}
	for _, sel := range scopeSelectorsFromQuota(q) {
		ok, err := e.matchScope(sel, obj)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (e *genericEvaluator[T]) matchScope(sel corev1.ScopedResourceSelectorRequirement, obj any) (bool, error) {
	if e.matchesScope == nil {
		return false, nil
	}
	t, err := e.item(obj)
	if err != nil {
		return false, err
	}
	return e.matchesScope(sel, t), nil
}

func (e *genericEvaluator[T]) MatchingResources(input []corev1.ResourceName) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, name := range input {
		if e.matches(name) {
			out = append(out, name)
		}
	}
	return out
}

func (e *genericEvaluator[T]) Usage(obj any) (corev1.ResourceList, error) {
	if e.usage == nil {
		return Add(corev1.ResourceList{}, e.countUsage), nil
	}
	t, err := e.item(obj)
	if err != nil {
		return nil, err
	}
	return e.usage(t), nil
}

// UsageStats is upstream's generic.CalculateUsageStats.
func (e *genericEvaluator[T]) UsageStats(options UsageStatsOptions) (UsageStats, error) {
	used := corev1.ResourceList{}
	for _, name := range options.Resources {
		used[name] = resource.Quantity{Format: resource.DecimalSI}
	}
	if e.list == nil {
		return UsageStats{Used: used}, errNoLister
	}
	items, err := e.list(options.Namespace)
	if err != nil {
		return UsageStats{Used: used}, fmt.Errorf("failed to list content: %w", err)
	}
	selectors := scopeSelectors(options.Scopes, options.ScopeSelector)
	for _, item := range items {
		matches := true
		for _, sel := range selectors {
			ok, err := e.matchScope(sel, item)
			if err != nil {
				return UsageStats{Used: used}, err
			}
			matches = matches && ok
		}
		if !matches {
			continue
		}
		usage, err := e.Usage(item)
		if err != nil {
			return UsageStats{Used: used}, err
		}
		used = Add(used, Mask(usage, options.Resources))
	}
	return UsageStats{Used: used}, nil
}

// scopeSelectorsFromQuota are a quota's scopes (as Exists requirements)
// and the requirements of its scope selector. Upstream:
// getScopeSelectorsFromQuota.
func scopeSelectorsFromQuota(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	return scopeSelectors(q.Spec.Scopes, q.Spec.ScopeSelector)
}

func scopeSelectors(scopes []corev1.ResourceQuotaScope, selector *corev1.ScopeSelector) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if selector != nil {
		out = append(out, selector.MatchExpressions...)
	}
	return out
}

// NewObjectCountEvaluator counts the objects of groupResource as
// count/<groupResource>, and as alias too when one is given (the legacy
// names "configmaps", "secrets", ...). list may be nil for an evaluator
// that only measures single objects. Upstream: generic.NewObjectCountEvaluator.
func NewObjectCountEvaluator[T any](groupResource string, list ListFuncByNamespace[T], alias corev1.ResourceName) Evaluator {
	names := []corev1.ResourceName{ObjectCountQuotaResourceNameFor(groupResource)}
	if alias != "" {
		names = append(names, alias)
	}
	usage := corev1.ResourceList{}
	for _, n := range names {
		usage[n] = *resource.NewQuantity(1, resource.DecimalSI)
	}
	return &genericEvaluator[T]{groupResource: groupResource, list: list, countUsage: usage,
		matches: func(n corev1.ResourceName) bool { _, ok := usage[n]; return ok }}
}

// CalculateUsage is the usage, by the evaluators, of the names of hard they
// compute, for the objects of namespace that match the scopes. On an error
// the usage holds the names measured without one.
func CalculateUsage(namespace string, scopes []corev1.ResourceQuotaScope, hard corev1.ResourceList, evaluators []Evaluator, scopeSelector *corev1.ScopeSelector) (corev1.ResourceList, error) {
	names := ResourceNames(hard)
	var errs []error
	used := corev1.ResourceList{}
	for _, e := range evaluators {
		matched := e.MatchingResources(names)
		if len(matched) == 0 {
			continue
		}
		stats, err := e.UsageStats(UsageStatsOptions{Namespace: namespace, Scopes: scopes, ScopeSelector: scopeSelector, Resources: matched})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		used = Add(used, stats.Used)
	}
	return Mask(used, names), errors.Join(errs...)
}

func one() resource.Quantity  { return *resource.NewQuantity(1, resource.DecimalSI) }
func zero() resource.Quantity { return resource.Quantity{Format: resource.DecimalSI} }
