package printers

import (
	"time"

	"kubik/ch01-apiserver/api/flowcontrolv1"
	"kubik/ch01-apiserver/api/metav1"
)

// API Priority and Fairness: upstream's printFlowSchema and
// printPriorityLevelConfiguration. Their column descriptions are the
// SwaggerDoc texts of k8s.io/api/flowcontrol/v1 (MissingPL has its own).
const (
	descPriorityLevel            = "`name` is the name of the priority level configuration being referenced Required."
	descMatchingPrecedence       = "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default."
	descDistinguisherMethod      = "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string."
	descMissingPL                = "references a broken or non-existent PriorityLevelConfiguration"
	descType                     = "`type` indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required."
	descNominalConcurrencyShares = "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server's concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a \"jail\" for this priority level that is used to hold some request(s)"
	descQueues                   = "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64."
	descHandSize                 = "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8."
	descQueueLengthLimit         = "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50."
)

var flowSchemaPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("PriorityLevel", "string", descPriorityLevel),
		column("MatchingPrecedence", "string", descMatchingPrecedence),
		column("DistinguisherMethod", "string", descDistinguisherMethod),
		ageColumn,
		column("MissingPL", "string", descMissingPL),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		fs := obj.(*flowcontrolv1.FlowSchema)
		method := "<none>"
		if fs.Spec.DistinguisherMethod != nil {
			method = string(fs.Spec.DistinguisherMethod.Type)
		}
		missing := "?" // no Dangling condition yet
		for _, c := range fs.Status.Conditions {
			if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
				missing = string(c.Status)
				break
			}
		}
		return []any{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64(fs.Spec.MatchingPrecedence), method,
			age(fs.CreationTimestamp, now), missing}, nil
	},
	// As the apiserver matches them: by precedence, then name (upstream's FlowSchemaSequence).
	less: func(a, b metav1.Object) bool {
		x, y := a.(*flowcontrolv1.FlowSchema), b.(*flowcontrolv1.FlowSchema)
		if x.Spec.MatchingPrecedence != y.Spec.MatchingPrecedence {
			return x.Spec.MatchingPrecedence < y.Spec.MatchingPrecedence
		}
		return x.Name < y.Name
	},
}

var priorityLevelConfigurationPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Type", "string", descType),
		column("NominalConcurrencyShares", "string", descNominalConcurrencyShares),
		column("Queues", "string", descQueues),
		column("HandSize", "string", descHandSize),
		column("QueueLengthLimit", "string", descQueueLengthLimit),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		plc := obj.(*flowcontrolv1.PriorityLevelConfiguration)
		var ncs, queues, handSize, queueLengthLimit any = "<none>", "<none>", "<none>", "<none>"
		if l := plc.Spec.Limited; l != nil {
			if l.NominalConcurrencyShares != nil {
				ncs = int64(*l.NominalConcurrencyShares)
			}
			if q := l.LimitResponse.Queuing; q != nil {
				queues, handSize, queueLengthLimit = int64(q.Queues), int64(q.HandSize), int64(q.QueueLengthLimit)
			}
		}
		return []any{plc.Name, string(plc.Spec.Type), ncs, queues, handSize, queueLengthLimit, age(plc.CreationTimestamp, now)}, nil
	},
}
