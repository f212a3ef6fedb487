package cache

import "kubik/ch03-scheduler/clientgo/rest"

// SetBeforeWatch makes i call f before it opens each watch.
func SetBeforeWatch[T any, PT rest.Object[T]](i *Informer[T, PT], f func()) { i.beforeWatch = f }
