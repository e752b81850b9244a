package aggregate

// hash64 is the stable 64-bit hash of HLL elements: FNV-1a, then murmur3's
// fmix64 finalizer to spread FNV's weak high bits. Sketches are stored, so
// this function must never change.
func hash64(b []byte) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for _, c := range b {
		h ^= uint64(c)
		h *= prime
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
