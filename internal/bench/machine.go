package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// describeMachine reads what Linux says about the machine; fields it
// cannot read stay empty.
func describeMachine(now time.Time) Machine {
	m := Machine{
		CPUs:       runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		OS:         runtime.GOOS + "/" + runtime.GOARCH,
		Go:         runtime.Version(),
		Start:      now.UTC().Format(time.RFC3339),
	}
	if v, ok := procField("/proc/cpuinfo", "model name"); ok {
		m.CPU = v
	}
	if v, ok := procField("/proc/meminfo", "MemTotal"); ok {
		m.MemBytes = kib(v)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.OS += " " + strings.TrimSpace(string(b))
	}
	return m
}

// procField returns the value of the first "key: value" line of a /proc
// file.
func procField(path, key string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// kib parses "123 kB" into bytes; 0 when it cannot.
func kib(v string) int64 {
	n, err := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
	if err != nil {
		return 0
	}
	return n << 10
}

// readRSS returns a process's resident set and its high-water mark.
func readRSS(pid int) (rss, peak int64, err error) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	v, ok := procField(path, "VmRSS")
	if !ok {
		return 0, 0, fmt.Errorf("bench: no VmRSS in %s", path)
	}
	rss = kib(v)
	if v, ok := procField(path, "VmHWM"); ok {
		peak = kib(v)
	}
	return rss, peak, nil
}
