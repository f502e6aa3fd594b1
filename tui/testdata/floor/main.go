// Command floor is the console's floor in BenchmarkConsolePaced: the
// smallest Bubble Tea v2 + Lip Gloss program that draws what Parley draws
// while two answers stream — two bordered panels side by side and a
// transcript under them — from the same chunks at the same pace and frame
// rate, as plain wrapped text. It writes the process CPU time from the first
// chunk to the last chunk's frame to -cpu, in nanoseconds. With -drain it is
// the terminal's reader for the console under measurement instead.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

type chunkMsg struct {
	agent int
	text  string
}

type doneMsg struct{}

type model struct {
	answers       []strings.Builder
	width, height int
	ready         chan struct{} // closed at the first size: the streams start
}

func (m *model) Init() tea.Cmd { return nil }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if m.width == 0 {
			close(m.ready)
		}
		m.width, m.height = msg.Width, msg.Height
	case chunkMsg:
		m.answers[msg.agent].WriteString(msg.text)
	case doneMsg:
		return m, tea.Quit
	}
	return m, nil
}

// lastLines wraps the end of text to w cells and keeps its last h lines.
func lastLines(text string, w, h int) string {
	if len(text) > 4*w*h {
		text = text[len(text)-4*w*h:]
	}
	lines := strings.Split(ansi.Wrap(text, max(w, 1), ""), "\n")
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	return strings.Join(lines, "\n")
}

func (m *model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	if m.width < 10 || m.height < 10 {
		return v
	}
	colors := []string{"#10a37f", "#d97757"}
	panelW, panelH := m.width/len(m.answers), m.height*2/3
	var panels []string
	for i := range m.answers {
		style := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color(colors[i%2])).
			Width(panelW).Height(panelH)
		panels = append(panels, style.Render(lastLines(m.answers[i].String(), panelW-2, panelH-2)))
	}
	transcriptH := m.height - panelH
	var both strings.Builder
	for i := range m.answers {
		both.WriteString(m.answers[i].String())
		both.WriteString("\n\n")
	}
	transcript := lipgloss.NewStyle().Width(m.width).Height(transcriptH).Render(lastLines(both.String(), m.width, transcriptH))
	v.SetContent(lipgloss.JoinVertical(lipgloss.Left, lipgloss.JoinHorizontal(lipgloss.Top, panels...), transcript))
	return v
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	chunksFile := flag.String("chunks", "", "JSON: each agent's chunks")
	interval := flag.Duration("interval", 25*time.Millisecond, "time between two chunks")
	cpuFile := flag.String("cpu", "", "where to write the CPU time")
	drain := flag.Bool("drain", false, "be a terminal's reader instead: read stdin to its end, print the bytes read")
	flag.Parse()
	if *drain {
		// The benchmark reads Parley's pseudo-terminal in this process, not
		// its own, so that the console's CPU time, like the floor's, leaves
		// out the terminal's side.
		n, _ := io.Copy(io.Discard, os.Stdin) // a pseudo-terminal ends in EIO once its other side closes
		fmt.Println(n)
		return
	}
	raw, err := os.ReadFile(*chunksFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var chunks [][]string
	if err := json.Unmarshal(raw, &chunks); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	m := &model{answers: make([]strings.Builder, len(chunks)), ready: make(chan struct{})}
	prog := tea.NewProgram(m, tea.WithFPS(30), tea.WithoutSignals())
	var used time.Duration
	go func() {
		<-m.ready
		tick := time.NewTicker(*interval)
		defer tick.Stop()
		start := cpuTime()
		for i := 0; ; i++ {
			sent := false
			for a := range chunks {
				if i < len(chunks[a]) {
					prog.Send(chunkMsg{a, chunks[a][i]})
					sent = true
				}
			}
			if !sent {
				break
			}
			<-tick.C
		}
		<-tick.C // the last chunk's frame
		<-tick.C
		used = cpuTime() - start
		prog.Send(doneMsg{})
	}()
	if _, err := prog.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*cpuFile, []byte(fmt.Sprint(used.Nanoseconds())), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
