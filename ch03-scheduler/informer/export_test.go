package informer

import "kubik/ch03-scheduler/client"

// SetBeforeWatch makes i call f before it opens each watch.
func SetBeforeWatch[T any, PT client.Object[T]](i *Informer[T, PT], f func()) { i.beforeWatch = f }
