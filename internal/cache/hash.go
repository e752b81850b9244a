package cache

import "hash/maphash"

// mix64 is a 64-bit finalizer (splitmix64's) that spreads every input bit
// over the whole output.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// stringHasher returns a hash function for strings with a fresh seed.
func stringHasher() func(string) uint64 {
	seed := maphash.MakeSeed()
	return func(s string) uint64 { return maphash.String(seed, s) }
}
