package docs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// The Markdown this package reads: fenced code blocks, the commands in them, headings and
// links. Just enough of CommonMark for the repository's own pages.

// block is a fenced code block.
type block struct {
	file  string // relative to the repository root
	line  int    // line of the opening fence
	lang  string // the info string's first word ("" when there is none)
	lines []string
}

// command is one command of a block, as written.
type command struct {
	file string
	line int
	text string // continuation lines joined with "\n", backslashes kept
	// output is the output a console block shows after the command (nil when none);
	// exit the status it must end with: 0, or what a following `$ echo $?` shows.
	output []string
	exit   int
}

func (c command) String() string { return fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text) }

// commandLangs mark blocks of commands; proseLangs blocks of anything else.
var (
	commandLangs = map[string]bool{"sh": true, "console": true}
	proseLangs   = map[string]bool{"yaml": true, "json": true, "text": true}
)

var fence = regexp.MustCompile("^( *)(```+|~~~+)[ \t]*([^` \t]*)")

// readBlocks returns the fenced code blocks of a Markdown file, and its lines outside
// them (blank where a block was, so that line numbers hold).
func readBlocks(root, file string) ([]block, []string, error) {
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return nil, nil, err
	}
	var (
		blocks []block
		prose  []string
		open   *block
		marker string
		indent int
	)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if open == nil {
			if m := fence.FindStringSubmatch(line); m != nil {
				open = &block{file: file, line: n, lang: m[3]}
				marker, indent = m[2], len(m[1])
				prose = append(prose, "")
				continue
			}
			prose = append(prose, line)
			continue
		}
		prose = append(prose, "")
		if t := strings.TrimSpace(line); strings.HasPrefix(t, marker) && strings.Trim(t, marker[:1]) == "" {
			blocks = append(blocks, *open)
			open = nil
			continue
		}
		open.lines = append(open.lines, strings.TrimPrefix(line, strings.Repeat(" ", indent)))
	}
	if open != nil {
		return nil, nil, fmt.Errorf("%s:%d: the code block is never closed", file, open.line)
	}
	return blocks, prose, sc.Err()
}

// commands returns the commands of a block of commands: in `sh`, each line that is not
// blank or a comment; in `console`, each line after `$ `, with the lines after it as its
// output. A line ending in a backslash goes on on the next.
func (b block) commands() ([]command, error) {
	var (
		out    []command
		cur    *command
		cont   bool
		status = -1 // the line of a status `echo $?` shows, read already
	)
	where := func(i int) string { return fmt.Sprintf("%s:%d", b.file, b.line+1+i) }
	flush := func() {
		if cur == nil {
			return
		}
		for len(cur.output) > 0 && strings.TrimSpace(cur.output[len(cur.output)-1]) == "" {
			cur.output = cur.output[:len(cur.output)-1]
		}
		out = append(out, *cur)
		cur = nil
	}
	for i, line := range b.lines {
		if i == status {
			continue
		}
		if cont {
			cur.text += "\n" + line
			cont = strings.HasSuffix(line, `\`)
			continue
		}
		var text string
		switch b.lang {
		case "sh":
			text = strings.TrimSpace(line)
			if text == "" || strings.HasPrefix(text, "#") {
				continue
			}
		case "console":
			after, ok := strings.CutPrefix(line, "$ ")
			if !ok {
				if cur == nil {
					if strings.TrimSpace(line) == "" {
						continue
					}
					return nil, fmt.Errorf("%s: output before any command: start a command with `$ `", where(i))
				}
				cur.output = append(cur.output, line)
				continue
			}
			text = strings.TrimSpace(after)
		}
		if text == "echo $?" {
			// The exit status of the command before, shown as its output.
			if cur == nil || b.lang != "console" {
				return nil, fmt.Errorf("%s: `echo $?` with no command before it in a console block", where(i))
			}
			if i+1 >= len(b.lines) {
				return nil, fmt.Errorf("%s: `echo $?` shows no status", where(i))
			}
			code, err := strconv.Atoi(strings.TrimSpace(b.lines[i+1]))
			if err != nil {
				return nil, fmt.Errorf("%s: `echo $?` shows %q, not a status", where(i+1), b.lines[i+1])
			}
			cur.exit, status = code, i+1
			continue
		}
		flush()
		if strings.HasPrefix(text, "#") {
			continue // a comment of a console session
		}
		cur = &command{file: b.file, line: b.line + 1 + i, text: text}
		cont = strings.HasSuffix(text, `\`)
	}
	flush()
	return out, nil
}

// headings returns the anchors GitHub gives the headings of a file's prose: the text
// lower-cased, without punctuation, spaces as hyphens, and -1, -2... after repeats.
func headings(prose []string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose {
		t := strings.TrimLeft(line, "#")
		if len(t) == len(line) || len(line)-len(t) > 6 || !strings.HasPrefix(t, " ") {
			continue
		}
		a := slug(t)
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}

var inlineLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

func slug(heading string) string {
	heading = inlineLink.ReplaceAllString(strings.TrimSpace(heading), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// link is a link of a file's prose.
type link struct {
	file, target string
	line         int
}

var (
	linkRE     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpanRE = regexp.MustCompile("`[^`]*`")
)

func links(file string, prose []string) []link {
	var out []link
	for i, line := range prose {
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			out = append(out, link{file: file, target: m[1], line: i + 1})
		}
	}
	return out
}
