package printers

import (
	"time"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/metav1"
)

// Webhook configurations: upstream's printValidatingWebhook and
// printMutatingWebhook (NAME WEBHOOKS AGE).
var webhookColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Webhooks", "integer", "Webhooks indicates the number of webhooks in the configuration."),
	ageColumn,
}

var validatingWebhookConfigurationPrinter = printer{
	columns: webhookColumns,
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		c := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
		return []any{c.Name, int64(len(c.Webhooks)), age(c.CreationTimestamp, now)}, nil
	},
}

var mutatingWebhookConfigurationPrinter = printer{
	columns: webhookColumns,
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		c := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
		return []any{c.Name, int64(len(c.Webhooks)), age(c.CreationTimestamp, now)}, nil
	},
}
