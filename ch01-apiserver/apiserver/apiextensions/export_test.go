package apiextensions

import "kubik/ch01-apiserver/api/metav1"

func metav1ListMeta() metav1.ListMeta { return metav1.ListMeta{} }
