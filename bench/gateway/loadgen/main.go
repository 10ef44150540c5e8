// Command loadgen is the gateway benchmark's HTTP load generator (standard library only). It sends
// the same GET over keep-alive HTTP/1.1 sockets, either at a fixed arrival rate or closed-loop, and
// prints one JSON line: {sent, ok, errors, seconds, rps, p50, p90, p99, max, late, cpuSeconds}
// (latencies in ms, null without a 2xx answer).
//
//	-mode fixed   open loop: request i is due at start + i/rate and leaves then (up to 0.5 ms early,
//	              see fixedRate), whatever happened to the earlier ones (a slow answer does not
//	              delay the next send). At most -concurrency sockets; a request that finds them
//	              all busy waits for one. Latency runs from the moment the request got its socket
//	              (its actual send) to the last byte of the answer; `late` counts requests sent
//	              more than 1 ms after they were due (no free socket, or this process could not
//	              keep up), so coordinated omission shows instead of hiding in the latencies.
//	-mode closed  -concurrency clients, each sending its next request when the previous one is
//	              answered: the most the target sustains.
//
// ok counts 2xx answers; any other status and transport errors (timeouts: 10 s) count as errors.
// Only requests due (fixed) or started (closed) after -warmup seconds are counted; cpuSeconds is
// this process's own user + system CPU time over the counted window. GOMAXPROCS and GOGC apply as
// for any Go program.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	timeout = 10 * time.Second
	lead    = 500 * time.Microsecond // how early a fixed-rate request may leave (see fixedRate)
)

type result struct {
	Sent       int      `json:"sent"`
	OK         int      `json:"ok"`
	Errors     int      `json:"errors"`
	Seconds    float64  `json:"seconds"`
	RPS        float64  `json:"rps"`
	P50        *float64 `json:"p50"`
	P90        *float64 `json:"p90"`
	P99        *float64 `json:"p99"`
	Max        *float64 `json:"max"`
	Late       int      `json:"late"`
	CPUSeconds float64  `json:"cpuSeconds"`
}

// sample is one counted request: whether it was answered 2xx, its latency, whether it left late.
type sample struct {
	ok      bool
	late    bool
	latency time.Duration
}

type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

// target sends the one request of the run; the base request is shared read-only by every send.
type target struct {
	client *http.Client
	base   *http.Request
}

func newTarget(rawURL string, headers []string, sockets int) (*target, error) {
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	for _, h := range headers {
		name, value, found := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !found || name == "" {
			return nil, fmt.Errorf("header %q is not `Name: value`", h)
		}
		if strings.EqualFold(name, "host") {
			req.Host = strings.TrimSpace(value)
		} else {
			req.Header.Add(name, strings.TrimSpace(value))
		}
	}
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy:                 nil, // the benchmark talks to local ports, never through a proxy
		DialContext:           dialer.DialContext,
		MaxIdleConns:          sockets,
		MaxIdleConnsPerHost:   sockets,
		MaxConnsPerHost:       sockets,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: timeout,
		DisableCompression:    true, // no Accept-Encoding added: the request is exactly the one given
	}
	client := &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &target{client: client, base: req}, nil
}

// do sends one request and reads the whole answer. sent is when it got its socket (just before
// the write), done when the last byte arrived.
func (t *target) do() (sent, done time.Time, ok bool) {
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { sent = time.Now() }}
	before := time.Now()
	resp, err := t.client.Do(t.base.WithContext(httptrace.WithClientTrace(context.Background(), trace)))
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ok = err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300
	}
	done = time.Now()
	if sent.IsZero() {
		sent = before
	}
	return sent, done, ok
}

func (t *target) record(s *sample, due time.Time) {
	sent, done, ok := t.do()
	s.ok = ok
	s.late = !due.IsZero() && sent.Sub(due) > time.Millisecond
	if ok {
		s.latency = done.Sub(sent)
	}
}

// cpuSeconds is this process's user + system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func fixedRate(t *target, rate float64, duration, warmup time.Duration) result {
	warm := int(math.Round(rate * warmup.Seconds()))
	counted := int(math.Round(rate * duration.Seconds()))
	samples := make([]sample, counted)
	interval := float64(time.Second) / rate
	var wg sync.WaitGroup
	start := time.Now()
	measureStart := start
	cpu0 := cpuSeconds()
	for i := 0; i < warm+counted; i++ {
		due := start.Add(time.Duration(float64(i) * interval))
		// Go's timers wake on whole milliseconds (epoll), so a sleep for 0.1 ms lasts 1 ms. Waking
		// for what falls due within the next `lead` keeps every send within lead of its due time
		// on a machine that schedules this process promptly; whatever is due on waking leaves at
		// once (the offered rate holds), and a real slip shows in `late`.
		if wait := time.Until(due) - lead; wait > 0 {
			time.Sleep(wait)
		}
		if i == warm {
			measureStart, cpu0 = due, cpuSeconds()
		}
		wg.Add(1)
		if i < warm {
			go func() { defer wg.Done(); t.do() }()
		} else {
			go func(s *sample) { defer wg.Done(); t.record(s, due) }(&samples[i-warm])
		}
	}
	wg.Wait()
	return summarize(samples, time.Since(measureStart), cpuSeconds()-cpu0)
}

func closedLoop(t *target, clients int, duration, warmup time.Duration) result {
	measureStart := time.Now().Add(warmup)
	end := measureStart.Add(duration)
	perClient := make([][]sample, clients)
	var wg sync.WaitGroup
	for c := range perClient {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				now := time.Now()
				if !now.Before(end) {
					return
				}
				if now.Before(measureStart) {
					t.do()
					continue
				}
				perClient[c] = append(perClient[c], sample{})
				t.record(&perClient[c][len(perClient[c])-1], time.Time{})
			}
		}()
	}
	time.Sleep(time.Until(measureStart))
	cpu0 := cpuSeconds()
	wg.Wait()
	elapsed := time.Since(measureStart)
	return summarize(slices.Concat(perClient...), elapsed, cpuSeconds()-cpu0)
}

func summarize(samples []sample, elapsed time.Duration, cpu float64) result {
	latencies := make([]time.Duration, 0, len(samples))
	r := result{Sent: len(samples), Seconds: elapsed.Seconds(), CPUSeconds: cpu}
	for _, s := range samples {
		if s.ok {
			latencies = append(latencies, s.latency)
		} else {
			r.Errors++
		}
		if s.late {
			r.Late++
		}
	}
	r.OK = len(latencies)
	r.RPS = float64(r.OK) / r.Seconds
	slices.Sort(latencies)
	percentile := func(p float64) *float64 {
		if len(latencies) == 0 {
			return nil
		}
		ms := float64(latencies[min(len(latencies)-1, int(p/100*float64(len(latencies))))]) / 1e6
		return &ms
	}
	r.P50, r.P90, r.P99, r.Max = percentile(50), percentile(90), percentile(99), percentile(100)
	return r
}

func main() {
	var headers headerList
	rawURL := flag.String("url", "", "URL to GET")
	flag.Var(&headers, "header", "request header `Name: value` (repeatable)")
	mode := flag.String("mode", "fixed", "fixed (open loop at -rate) or closed (-concurrency clients)")
	rate := flag.Float64("rate", 1000, "requests per second (fixed mode)")
	concurrency := flag.Int("concurrency", 64, "closed mode: clients; fixed mode: most sockets")
	duration := flag.Float64("duration", 10, "counted seconds")
	warmup := flag.Float64("warmup", 0, "seconds of load before counting starts")
	flag.Parse()

	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	switch {
	case *rawURL == "":
		fail(errors.New("-url is required"))
	case *mode != "fixed" && *mode != "closed":
		fail(fmt.Errorf("-mode %q: want fixed or closed", *mode))
	case *mode == "fixed" && !(*rate > 0):
		fail(errors.New("-rate must be positive"))
	case *concurrency < 1:
		fail(errors.New("-concurrency must be at least 1"))
	case !(*duration > 0) || !(*warmup >= 0):
		fail(errors.New("-duration must be positive and -warmup not negative"))
	}
	t, err := newTarget(*rawURL, headers, *concurrency)
	if err != nil {
		fail(err)
	}
	seconds := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	var r result
	if *mode == "fixed" {
		r = fixedRate(t, *rate, seconds(*duration), seconds(*warmup))
	} else {
		r = closedLoop(t, *concurrency, seconds(*duration), seconds(*warmup))
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fail(err)
	}
}
