package defaults

import "kubik/ch01-apiserver/api/flowcontrolv1"

// setDefaultsFlowSchema is SetDefaults_FlowSchemaSpec: matchingPrecedence 1000.
func setDefaultsFlowSchema(fs *flowcontrolv1.FlowSchema) {
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = 1000
	}
}

// setDefaultsPriorityLevelConfiguration is upstream's v1 defaulting: a
// limited level gets 30 nominal concurrency shares and lends nothing, its
// queues default to 64 queues, hands of 8 and 50 requests per queue; an
// exempt level has 0 shares and lends nothing.
func setDefaultsPriorityLevelConfiguration(plc *flowcontrolv1.PriorityLevelConfiguration) {
	if l := plc.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptrTo[int32](30)
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptrTo[int32](0)
		}
		if q := l.LimitResponse.Queuing; q != nil {
			if q.HandSize == 0 {
				q.HandSize = 8
			}
			if q.Queues == 0 {
				q.Queues = 64
			}
			if q.QueueLengthLimit == 0 {
				q.QueueLengthLimit = 50
			}
		}
	}
	if e := plc.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptrTo[int32](0)
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptrTo[int32](0)
		}
	}
}
