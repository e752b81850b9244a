package cache

import "testing"

func TestRowCache(t *testing.T) {
	r := NewRowCache[[]string](1 << 20)
	for _, k := range []string{"com.a/1", "com.a/2", "com.b/1", "org.a"} {
		r.Set(k, []string{k}, 10)
	}
	if v, ok := r.Get("com.a/2"); !ok || v[0] != "com.a/2" {
		t.Fatalf("Get = %v, %v", v, ok)
	}
	r.DeletePrefix("com.a/")
	r.Delete("org.a")
	for k, want := range map[string]bool{"com.a/1": false, "com.a/2": false, "com.b/1": true, "org.a": false} {
		if _, ok := r.Get(k); ok != want {
			t.Errorf("%q present %v, want %v", k, ok, want)
		}
	}
	if r.Size() != 10 {
		t.Fatalf("Size %d, want 10", r.Size())
	}
	if st := r.Stats(); st.Hits != 2 || st.Misses != 3 {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestRowCacheDisabled(t *testing.T) {
	r := NewRowCache[int](0)
	r.Set("k", 1, 1)
	if _, ok := r.Get("k"); ok {
		t.Fatal("capacity 0 row cache kept a row")
	}
}
