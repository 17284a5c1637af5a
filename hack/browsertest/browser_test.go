package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The package's shared state, set up once by TestMain: the phalanx binary the reports are
// written with, and one headless Chromium whose tabs open them.
var (
	workDir    string
	phalanxBin string
	repoRoot   string
	browserCtx context.Context
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := filepath.Abs("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	repoRoot = root
	chrome, err := findChromium()
	if err != nil {
		// Not a skip: a machine without the browser must not pass the browser test.
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	work, err := os.MkdirTemp("", "browsertest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	defer os.RemoveAll(work)
	workDir = work
	phalanxBin = filepath.Join(work, "phalanx")
	build := exec.Command("go", "build", "-o", phalanxBin, "./cmd/phalanx")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: building phalanx:", err)
		return 1
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		fmt.Fprintf(os.Stderr, "browsertest: starting %s: %v\n", chrome, err)
		return 1
	}
	browserCtx = ctx
	return m.Run()
}

// findChromium is $CHROMIUM, else chromium (Debian's package) or Google Chrome on the PATH.
func findChromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$CHROMIUM=%s: %v", p, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found (install Debian's package: apt-get install -y chromium; or set $CHROMIUM to the browser's path)")
}

// phalanx runs the binary from the repository root, as the docs' commands run, and fails
// the test on a non-zero exit.
func phalanx(t testing.TB, args ...string) {
	t.Helper()
	cmd := exec.Command(phalanxBin, args...)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("phalanx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// tab is one report opened in its own browser tab, with every console error and uncaught
// exception the page raised.
type tab struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
	synced chan string   // the sentinels the console reader has seen
	opened time.Duration // from the navigation's start to its load event, as the browser timed it
}

// open opens the HTML file in a new tab and waits for its load event.
func open(t testing.TB, file string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	tb := &tab{ctx: ctx, synced: make(chan string, 16)}
	messages := chromedp.Console(ctx) // subscribed before the page loads: no message is lost
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			switch {
			case m.Type == chromedp.ConsoleDebug && strings.HasPrefix(m.Text, "browsertest-sync-"):
				tb.synced <- m.Text
			case m.Type == chromedp.ConsoleError || m.IsException():
				msg := m.String()
				if m.Source != "" {
					msg += " (" + m.Source + ")"
				}
				if m.URL != "" || m.Line != 0 {
					msg += fmt.Sprintf(" at %s:%d:%d", filepath.Base(m.URL), m.Line+1, m.Column+1)
				}
				tb.mu.Lock()
				tb.errors = append(tb.errors, msg)
				tb.mu.Unlock()
			}
		}
	}()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs)); err != nil {
		t.Fatalf("opening %s: %v", file, err)
	}
	loadMS := eval[float64](t, tb, `performance.getEntriesByType("navigation")[0].loadEventEnd`)
	tb.opened = time.Duration(loadMS * float64(time.Millisecond))
	return tb
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t testing.TB, tb *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, time.Minute) // a hung page fails, not hangs, the test
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// do runs actions (clicks, typing) in the page.
func (tb *tab) do(t testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

var syncs int

// noErrors fails the test for each console error or exception the page raised so far.
func (tb *tab) noErrors(t testing.TB) {
	t.Helper()
	// Messages arrive in order: once a sentinel written now has been read, every message
	// before it has.
	syncs++
	want := fmt.Sprintf("browsertest-sync-%d", syncs)
	eval[bool](t, tb, fmt.Sprintf(`console.debug(%q), true`, want))
	timeout := time.After(time.Minute)
	for done := false; !done; {
		select {
		case got := <-tb.synced:
			done = got == want
		case <-timeout:
			t.Fatal("the page's console messages did not arrive")
		}
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, e := range tb.errors {
		t.Errorf("the page raised %s", e)
	}
	tb.errors = nil
}

// setValue sets a form control's value as a person would and fires the events the page
// listens to (input, then change).
func setValue(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		js := fmt.Sprintf(`(function () {
			var el = document.querySelector(%q);
			if (!el) throw new Error("no element " + %q);
			el.value = %q;
			el.dispatchEvent(new Event("input", {bubbles: true}));
			el.dispatchEvent(new Event("change", {bubbles: true}));
			return true;
		})()`, sel, sel, value)
		_, err := chromedp.Evaluate[bool](js)(ctx, tg)
		return err
	})
}

// figure records a measured figure: in the test's log, and appended to
// $BROWSERTEST_FIGURES when it is set (`make test` prints that file).
func figure(t testing.TB, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	if f := os.Getenv("BROWSERTEST_FIGURES"); f != "" {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		fmt.Fprintln(fh, line)
	}
}

// readJSON reads the -o json report of the same run, to know what the page must show.
func readJSON(t testing.TB, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
