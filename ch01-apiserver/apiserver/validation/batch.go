package validation

import (
	"fmt"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

func validateJobSpec(spec *batchv1.JobSpec, fldPath *field.Path, checkSelector bool) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateOptionalNonnegative(spec.Parallelism, fldPath.Child("parallelism"))...)
	errs = append(errs, validateOptionalNonnegative(spec.Completions, fldPath.Child("completions"))...)
	errs = append(errs, validateOptionalNonnegative(spec.BackoffLimit, fldPath.Child("backoffLimit"))...)
	if spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, ValidateNonnegativeField(*spec.ActiveDeadlineSeconds, fldPath.Child("activeDeadlineSeconds"))...)
	}
	if checkSelector {
		if spec.Selector == nil {
			errs = append(errs, field.Required(fldPath.Child("selector"), ""))
		} else {
			errs = append(errs, ValidateLabelSelector(spec.Selector, fldPath.Child("selector"))...)
			if !selectorMatches(spec.Selector, spec.Template.Labels) {
				errs = append(errs, field.Invalid(fldPath.Child("template", "metadata", "labels"), spec.Template.Labels,
					"`selector` does not match template `labels`"))
			}
		}
	}
	errs = append(errs, ValidatePodTemplateSpec(&spec.Template, fldPath.Child("template"))...)
	if rp := spec.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever {
		errs = append(errs, field.NotSupported(fldPath.Child("template", "spec", "restartPolicy"), rp,
			[]corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	}
	return errs
}

func validateJob(job *batchv1.Job) field.ErrorList {
	errs := ValidateObjectMeta(&job.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateJobSpec(&job.Spec, field.NewPath("spec"), true)...)
}

// validateJobUpdate: selector and completions are fixed, and so is the pod
// template while the Job is not suspended.
func validateJobUpdate(job, old *batchv1.Job) field.ErrorList {
	p := field.NewPath("spec")
	errs := ValidateImmutableField(job.Spec.Selector, old.Spec.Selector, p.Child("selector"))
	errs = append(errs, ValidateImmutableField(job.Spec.Completions, old.Spec.Completions, p.Child("completions"))...)
	errs = append(errs, ValidateImmutableField(job.Spec.CompletionMode, old.Spec.CompletionMode, p.Child("completionMode"))...)
	suspended := old.Spec.Suspend != nil && *old.Spec.Suspend
	if !suspended {
		errs = append(errs, ValidateImmutableField(job.Spec.Template, old.Spec.Template, p.Child("template"))...)
	}
	return errs
}

func validateCronJob(cj *batchv1.CronJob) field.ErrorList {
	errs := ValidateObjectMeta(&cj.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	if len(cj.Name) > 52 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, "must be no more than 52 characters"))
	}
	p := field.NewPath("spec")
	if cj.Spec.Schedule == "" {
		errs = append(errs, field.Required(p.Child("schedule"), ""))
	} else if strings.Contains(cj.Spec.Schedule, "TZ") {
		errs = append(errs, field.Invalid(p.Child("schedule"), cj.Spec.Schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	} else if err := ParseCronSchedule(cj.Spec.Schedule); err != nil {
		errs = append(errs, field.Invalid(p.Child("schedule"), cj.Spec.Schedule, err.Error()))
	}
	switch cj.Spec.ConcurrencyPolicy {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
	case "":
		errs = append(errs, field.Required(p.Child("concurrencyPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("concurrencyPolicy"), cj.Spec.ConcurrencyPolicy,
			[]batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent}))
	}
	if cj.Spec.StartingDeadlineSeconds != nil {
		errs = append(errs, ValidateNonnegativeField(*cj.Spec.StartingDeadlineSeconds, p.Child("startingDeadlineSeconds"))...)
	}
	errs = append(errs, validateOptionalNonnegative(cj.Spec.SuccessfulJobsHistoryLimit, p.Child("successfulJobsHistoryLimit"))...)
	errs = append(errs, validateOptionalNonnegative(cj.Spec.FailedJobsHistoryLimit, p.Child("failedJobsHistoryLimit"))...)
	return append(errs, validateJobSpec(&cj.Spec.JobTemplate.Spec, p.Child("jobTemplate", "spec"), false)...)
}

// cronField is one of the five fields of a standard cron schedule.
type cronField struct {
	min, max int
	names    map[string]int
}

var cronFields = []cronField{
	{0, 59, nil}, // minute
	{0, 23, nil}, // hour
	{1, 31, nil}, // day of month
	{1, 12, map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}},
	{0, 6, map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}},
}

// ParseCronSchedule checks a standard five-field schedule (or a descriptor
// such as @hourly) with the error texts of the cron library upstream uses.
func ParseCronSchedule(spec string) error {
	if strings.HasPrefix(spec, "@") {
		switch spec {
		case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
			return nil
		}
		if strings.HasPrefix(spec, "@every ") {
			return nil
		}
		return fmt.Errorf("unrecognized descriptor: %s", spec)
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), fmt.Sprint(fields))
	}
	for i, f := range fields {
		for _, expr := range strings.Split(f, ",") {
			if err := parseCronRange(expr, cronFields[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func parseCronRange(expr string, r cronField) error {
	rangeAndStep := strings.Split(expr, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	var start, end int
	var err error
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		start, end = r.min, r.max
	} else {
		if start, err = parseCronInt(lowAndHigh[0], r); err != nil {
			return err
		}
		end = start
		if len(lowAndHigh) == 2 {
			if end, err = parseCronInt(lowAndHigh[1], r); err != nil {
				return err
			}
		} else if len(lowAndHigh) > 2 {
			return fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	if len(rangeAndStep) == 2 {
		step, err := strconv.Atoi(rangeAndStep[1])
		if err != nil {
			return fmt.Errorf("failed to parse int from %s: %s", rangeAndStep[1], err)
		}
		if step < 0 {
			return fmt.Errorf("negative number (%d) not allowed: %s", step, rangeAndStep[1])
		}
		if step == 0 {
			return fmt.Errorf("step of range should be a positive number: %s", expr)
		}
	} else if len(rangeAndStep) > 2 {
		return fmt.Errorf("too many slashes: %s", expr)
	}
	if start < r.min {
		return fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, r.min, expr)
	}
	if end > r.max {
		return fmt.Errorf("end of range (%d) above maximum (%d): %s", end, r.max, expr)
	}
	if start > end {
		return fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	}
	return nil
}

func parseCronInt(s string, r cronField) (int, error) {
	if v, ok := r.names[strings.ToLower(s)]; ok {
		return v, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %s", s, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, s)
	}
	return n, nil
}
